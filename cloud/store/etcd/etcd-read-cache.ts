import type { Clock } from '../../../shared/clock.js';
import type { KeyValue, WatchEvent } from '../store.js';

/** The cache could not answer consistently in time: the caller reads etcd. */
export const MISS = Symbol('miss');

interface Waiter {
  revision: number;
  done: (reached: boolean) => void;
}

/**
 * Every key of the store as the store's own watch of etcd last showed it, so that a get need
 * not read etcd (kube-apiserver's watch cache with consistent reads): a read names the revision
 * etcd answered for "now", waits until the watch has shown that revision, and answers from
 * memory. If the watch is not there within `waitMs`, or the cache is being (re)loaded, the
 * answer is MISS and the caller reads etcd itself.
 *
 * etcd's revision also moves with writes outside the store's prefix, which the watch never
 * shows: hence the short wait. But while the watch has yet to show a write the store made
 * itself, it is only behind (a busy process reads its watch late), not waiting for nothing: the
 * read waits on, up to `maxWaitMs` (kube-apiserver's watch cache blocks up to 3 s), rather
 * than adding a read of its own to etcd's load.
 */
export class EtcdReadCache {
  private readonly kvs = new Map<string, KeyValue>();
  /** The revision the cache holds every key at; -1 while it holds nothing. */
  private seen = -1;
  /** The newest revision of a write the store made under its prefix (-1: none since the last load). */
  private written = -1;
  private readonly waiters = new Set<Waiter>();

  /** `clock` times the wait: a wall clock, as etcd's answers come in wall time. */
  constructor(
    private readonly waitMs: number,
    private readonly clock: Clock,
    private readonly maxWaitMs = 3_000,
  ) {}

  /** The store wrote under its prefix at `revision`: the watch will show it. */
  wrote(revision: number): void {
    this.written = Math.max(this.written, revision);
  }

  get loaded(): boolean {
    return this.seen >= 0;
  }

  /** Holds a list's items, taken at `revision`. */
  load(items: readonly KeyValue[], revision: number): void {
    this.kvs.clear();
    for (const kv of items) this.kvs.set(kv.key, kv);
    this.seen = -1;
    this.advance(revision);
  }

  /**
   * The watch's next event: events come in revision order, one write each, so the cache then
   * holds every key at the event's revision. (A watch response's header revision would not do:
   * etcd may send a catching-up watcher part of the events with the latest revision.) Returns
   * the event whole, its previous entry (and a delete's last value) from memory, or undefined
   * when the cache already held it.
   */
  apply(event: WatchEvent): WatchEvent | undefined {
    if (!this.loaded || event.kv.modRevision < this.seen) return undefined;
    const key = event.kv.key;
    const prevKv = this.kvs.get(key);
    let whole: WatchEvent;
    if (event.type === 'put') {
      this.kvs.set(key, event.kv);
      whole = { type: 'put', kv: event.kv, prevKv };
    } else {
      this.kvs.delete(key);
      whole = { type: 'delete', kv: { key, value: prevKv?.value ?? null, createRevision: prevKv?.createRevision ?? 0, modRevision: event.kv.modRevision }, prevKv };
    }
    this.advance(event.kv.modRevision);
    return whole;
  }

  /** The revision the cache holds every key at (-1 while unloaded). */
  get revision(): number {
    return this.seen;
  }

  private advance(revision: number): void {
    if (revision <= this.seen) return;
    this.seen = revision;
    for (const w of this.waiters) if (w.revision <= revision) this.finish(w, true);
  }

  /** Forgets everything (the watch ended or the store disconnected): reads MISS until the next load. */
  reset(): void {
    this.kvs.clear();
    this.seen = -1;
    this.written = -1;
    for (const w of this.waiters) this.finish(w, false);
  }

  /** The key's entry as of `revision` or later; MISS when the cache does not get there in time. */
  async read(key: string, revision: number): Promise<KeyValue | undefined | typeof MISS> {
    return (await this.caughtUp(revision)) ? this.kvs.get(key) : MISS;
  }

  /** Whether the watch shows `revision` in time (at once when it has; false while unloaded). */
  async caughtUp(revision: number): Promise<boolean> {
    if (!this.loaded) return false;
    return this.seen >= revision || this.reaches(revision);
  }

  private reaches(revision: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = { revision, done: resolve };
      const start = this.clock.now();
      let cancel = (): void => {};
      const expire = (): void => {
        const behindOnOwnWrite = this.seen < this.written;
        if (behindOnOwnWrite && this.clock.now() - start < this.maxWaitMs) cancel = this.clock.setTimer(this.waitMs, expire);
        else this.finish(waiter, false);
      };
      cancel = this.clock.setTimer(this.waitMs, expire);
      waiter.done = (reached) => {
        cancel();
        resolve(reached);
      };
      this.waiters.add(waiter);
    });
  }

  private finish(waiter: Waiter, reached: boolean): void {
    if (!this.waiters.delete(waiter)) return;
    waiter.done(reached);
  }
}

/**
 * `call` for each caller, except that callers arriving while a call is in flight share the next
 * one: every caller gets the answer of a call sent after it asked (so a revision it gets is no
 * older than its request), and at most one call is in flight. If it fails, those waiting for the
 * next fail with it; a caller arriving once nothing is in flight sends a call of its own.
 */
export function sharedCalls<T>(call: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const send = (): Promise<T> => {
    const sent = call();
    inFlight = sent;
    // Registered before any waiter's handler, so it runs first when the call settles.
    const settled = (): void => {
      if (inFlight === sent) inFlight = undefined;
    };
    sent.then(settled, settled);
    return sent;
  };
  return () => {
    if (!inFlight) return send();
    // When the call in flight fails (etcd unreachable, or no quorum), those waiting for the next
    // fail with it rather than wait out a second deadline.
    next ??= inFlight.then(
      () => {
        next = undefined;
        return send();
      },
      (err: unknown) => {
        next = undefined;
        throw err;
      },
    );
    return next;
  };
}
