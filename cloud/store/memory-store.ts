import type { Observable } from 'rxjs';
import { KvState } from './kv-state.js';
import { listAt } from './list-at.js';
import type { KeyValue, ListOptions, ListResult, Store, WatchEvent } from './store.js';
import { WatchHistory, type HistoryOptions } from './watch-history.js';

/** How much history watches (and lists at an older revision) can read: see HistoryOptions. */
export type MemoryStoreOptions = HistoryOptions;

/** A Store that lives only in memory: for tests and hollow fleets. */
export class MemoryStore implements Store {
  private readonly state = new KvState();
  private readonly history: WatchHistory;

  constructor(options: MemoryStoreOptions = {}) {
    this.history = new WatchHistory(options);
  }

  get revision(): number {
    return this.state.revision;
  }

  get compactedRevision(): number {
    return this.history.compacted;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    return this.state.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const current = this.state.list(prefix, options.fromKey);
    return listAt({ current, revision: this.state.revision, eventsAfter: (r) => this.history.eventsAfter(prefix, r) }, options);
  }

  async create(key: string, value: unknown): Promise<KeyValue> {
    return this.emit(this.state.create(key, value).event);
  }

  async update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue> {
    return this.emit(this.state.update(key, value, expectedModRevision).event);
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.emit(this.state.delete(key, expectedModRevision).event);
  }

  watch(prefix: string, afterRevision: number): Observable<WatchEvent> {
    return this.history.watch(prefix, afterRevision, () => this.state.revision);
  }

  async compact(revision: number): Promise<void> {
    this.history.compact(Math.min(revision, this.state.revision));
  }

  async close(): Promise<void> {
    this.history.close();
  }

  private emit(event: WatchEvent): KeyValue {
    this.history.record(event);
    return event.kv;
  }
}
