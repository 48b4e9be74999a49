import { Observable, type Subscriber } from 'rxjs';
import { KedgeError } from '../../shared/errors.js';
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent } from './store.js';

/**
 * A Store that can be switched off and on (`kedge component stop store`), acting out etcd
 * being down. While down, every call fails with Unavailable (503) and every open watch ends
 * with that error; the store underneath keeps everything, so once up again all is there and
 * a watch resumes from the last revision its client saw. The revision getters keep answering:
 * they are what the store last committed.
 */
export const STORE_CLOSED = 'the store is closed (the cloud is stopping)';

export class GatedStore implements Store {
  private downMessage: string | undefined;
  private readonly watchers = new Set<Subscriber<WatchEvent>>();

  constructor(private readonly inner: Store) {}

  get isUp(): boolean {
    return this.downMessage === undefined;
  }

  /** From now on every call fails with Unavailable carrying `message`; open watches end with it. */
  down(message: string): void {
    this.downMessage = message;
    for (const watcher of [...this.watchers]) watcher.error(this.unavailable());
  }

  up(): void {
    this.downMessage = undefined;
  }

  get revision(): number {
    return this.inner.revision;
  }

  get compactedRevision(): number {
    return this.inner.compactedRevision;
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.gate(() => this.inner.get(key));
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.gate(() => this.inner.list(prefix, options));
  }

  create(key: string, value: unknown): Promise<KeyValue> {
    return this.gate(() => this.inner.create(key, value));
  }

  update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue> {
    return this.gate(() => this.inner.update(key, value, expectedModRevision));
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.gate(() => this.inner.delete(key, expectedModRevision));
  }

  compact(revision: number): Promise<void> {
    return this.gate(() => this.inner.compact(revision));
  }

  watch(prefix: string, afterRevision: number): Observable<WatchEvent> {
    return new Observable<WatchEvent>((subscriber) => {
      if (!this.isUp) {
        subscriber.error(this.unavailable());
        return undefined;
      }
      this.watchers.add(subscriber);
      const feed = this.inner.watch(prefix, afterRevision).subscribe(subscriber);
      return () => {
        this.watchers.delete(subscriber);
        feed.unsubscribe();
      };
    });
  }

  /** Closes the store underneath; a call still arriving (a shutdown's stragglers) gets 503, not the closed client's error. */
  close(): Promise<void> {
    this.down(STORE_CLOSED);
    return this.inner.close();
  }

  private async gate<T>(op: () => Promise<T>): Promise<T> {
    if (!this.isUp) throw this.unavailable();
    return op();
  }

  private unavailable(): KedgeError {
    return new KedgeError('Unavailable', this.downMessage ?? 'the store is down');
  }
}
