import type { Observable } from 'rxjs';
import { KvState } from './kv-state.js';
import type { KeyValue, ListResult, Store, WatchEvent } from './store.js';
import { WatchHistory } from './watch-history.js';

export interface MemoryStoreOptions {
  /** How many recent events a watch can resume from (default 10,000). */
  historySize?: number;
}

/** A Store that lives only in memory: for tests and hollow fleets. */
export class MemoryStore implements Store {
  private readonly state = new KvState();
  private readonly history: WatchHistory;

  constructor(options: MemoryStoreOptions = {}) {
    this.history = new WatchHistory(options.historySize ?? 10_000);
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

  async list(prefix: string): Promise<ListResult> {
    return { items: this.state.list(prefix), revision: this.state.revision };
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
