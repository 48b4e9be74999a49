import type { Observable, Subscription } from 'rxjs';
import { realClock } from '../../../shared/clock.js';
import { KedgeError } from '../../../shared/errors.js';
import type { KeyValue, ListResult, WatchEvent } from '../store.js';
import { WatchHistory, type HistoryOptions } from '../watch-history.js';
import { EtcdReadCache, MISS, sharedCalls } from './etcd-read-cache.js';

/** What the follower reads etcd with (the EtcdStore's own calls, on its current client). */
export interface FollowedEtcd {
  /** Every key of the store, at one revision. */
  listAll(): Promise<ListResult>;
  /** Every key's changes after `revision`, in order (no previous values needed); ends with an error when etcd ends the watch. */
  watchAll(afterRevision: number): Observable<WatchEvent>;
  /** etcd's revision now (one cheap read). */
  revisionNow(): Promise<number>;
  /** How long a read waits for the watch to reach etcd's revision before it answers MISS. */
  cacheWaitMs: number;
  /** The windows of recent events the follower keeps for watches, as the embedded stores keep them. */
  history: HistoryOptions;
}

/**
 * The EtcdStore's own view of etcd: a list of the whole store, then a watch of it from the
 * list's revision (both again if etcd ends the watch, or a second after a failed list), kept
 * in a read cache. A read asks etcd only for its current revision, one call shared by every
 * read meanwhile, and answers from memory once the watch has shown that revision
 * (etcd-read-cache.ts). The watch's response headers also keep the store's revision current.
 *
 * The events it sees also go into a WatchHistory, from which the store serves its watches
 * (kube-apiserver's watch cache): one etcd watch decoded once, however many watch the store.
 * When the follower lists again, the events in between are unknown: every watch it serves
 * ends with Expired, and its client lists again, as kube's do when their cache re-lists.
 */
export class EtcdFollower {
  private readonly cache: EtcdReadCache;
  private readonly revisionNow: () => Promise<number>;
  private subscription: Subscription | undefined;
  private history: WatchHistory | undefined;
  /** Which follow() is current: a list that returns after a newer one started (or a stop) is dropped. */
  private generation = 0;
  private running = false;

  constructor(private readonly etcd: FollowedEtcd) {
    this.cache = new EtcdReadCache(etcd.cacheWaitMs, realClock);
    this.revisionNow = sharedCalls(() => etcd.revisionNow());
  }

  /** Whether reads are answered from memory (false while the cache loads, and while stopped). */
  get loaded(): boolean {
    return this.cache.loaded;
  }

  start(): void {
    this.running = true;
    this.follow();
  }

  /** Stops following (the store disconnects or closes): reads answer MISS until `start`. */
  stop(): void {
    this.running = false;
    this.generation++;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.cache.reset();
    this.endHistory('the store disconnected from etcd');
  }

  /**
   * Changes under `prefix` after `afterRevision`, from the follower's history; undefined when it
   * cannot serve them (not loaded, or older than what it holds: the caller watches etcd itself).
   */
  watch(prefix: string, afterRevision: number): Observable<WatchEvent> | undefined {
    const history = this.history;
    if (!history || afterRevision < history.oldestAfter(prefix)) return undefined;
    return history.watch(prefix, afterRevision, () => this.cache.revision);
  }

  /**
   * Before this store compacts etcd through `revision`: waits (briefly) for the follower's own
   * watch to pass it, since etcd cancels a watch still behind a compaction (and the follower
   * would list again, ending every watch it serves); then watches from before it expire.
   */
  async compact(revision: number): Promise<void> {
    await this.cache.caughtUp(revision);
    this.history?.compact(revision);
  }

  /** The store wrote at `revision`: reads wait for the watch to show it rather than read etcd. */
  wrote(revision: number): void {
    this.cache.wrote(revision);
  }

  /** The key's entry as etcd holds it now, from memory; MISS when the cache cannot say in time (the caller reads etcd). */
  async read(key: string): Promise<KeyValue | undefined | typeof MISS> {
    if (!this.cache.loaded) return MISS;
    return this.cache.read(key, await this.revisionNow());
  }

  private follow(): void {
    const generation = ++this.generation;
    this.cache.reset();
    this.endHistory('the store lists etcd again');
    if (!this.running) return;
    const current = (): boolean => generation === this.generation;
    this.etcd.listAll().then(
      ({ items, revision }) => {
        if (!current()) return;
        this.cache.load(items, revision);
        const history = (this.history = new WatchHistory(this.etcd.history, revision));
        this.subscription = this.etcd.watchAll(revision).subscribe({
          next: (event) => {
            const whole = this.cache.apply(event);
            if (whole) history.record(whole);
          },
          error: () => this.follow(),
        });
      },
      () => current() && realClock.setTimer(1_000, () => current() && this.follow()),
    );
  }

  private endHistory(why: string): void {
    this.history?.end(new KedgeError('Expired', `too old resource version: ${why}; list again`));
    this.history = undefined;
  }
}
