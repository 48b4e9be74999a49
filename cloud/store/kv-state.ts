import { KedgeError } from '../../shared/errors.js';
import { deepFreeze } from '../../shared/freeze.js';
import { shareSubtrees, ValuePool } from './shared-subtrees.js';
import type { KeyValue, WatchEvent } from './store.js';


/** One committed write, as a backend logs or replays it. */
export type WriteRecord =
  | { op: 'put'; key: string; value: unknown; revision: number; createRevision: number }
  | { op: 'delete'; key: string; revision: number };

/**
 * The in-memory map behind every Store backend: checks preconditions, assigns revisions
 * and turns each write into a record and a watch event. It does no I/O.
 */
export class KvState {
  private readonly entries = new Map<string, KeyValue>();
  private sortedKeys: string[] | undefined;
  /** The short strings and small field sets of the values, one copy each (shared-subtrees.ts). */
  private readonly pool = new ValuePool();
  revision: number;

  constructor(revision = 0) {
    this.revision = revision;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): KeyValue | undefined {
    return this.entries.get(key);
  }

  /** The entries under `prefix` from key `from` on, sorted by key. */
  list(prefix: string, from = prefix): KeyValue[] {
    const keys = (this.sortedKeys ??= [...this.entries.keys()].sort());
    const start = from > prefix ? from : prefix;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    const out: KeyValue[] = [];
    for (let i = lo; i < keys.length && keys[i]!.startsWith(prefix); i++) out.push(this.entries.get(keys[i]!)!);
    return out;
  }

  create(key: string, value: unknown): { record: WriteRecord; event: WatchEvent } {
    if (this.entries.has(key)) throw new KedgeError('AlreadyExists', `key ${key} already exists`);
    const revision = this.revision + 1;
    return this.commit({ op: 'put', key, value, revision, createRevision: revision });
  }

  update(key: string, value: unknown, expected?: number): { record: WriteRecord; event: WatchEvent } {
    const prev = this.existing(key, expected);
    return this.commit({ op: 'put', key: prev.key, value, revision: this.revision + 1, createRevision: prev.createRevision });
  }

  delete(key: string, expected?: number): { record: WriteRecord; event: WatchEvent } {
    this.existing(key, expected);
    return this.commit({ op: 'delete', key, revision: this.revision + 1 });
  }

  /**
   * Applies a record (a new write, or one replayed from a log) and returns its watch event. The
   * value is frozen, sharing what it has in common with the entry it replaces (shared-subtrees.ts).
   */
  apply(record: WriteRecord): WatchEvent {
    const prevKv = this.entries.get(record.key);
    this.revision = record.revision;
    if (record.op === 'delete') {
      if (!prevKv) throw new KedgeError('Internal', `log deletes missing key ${record.key}`);
      this.entries.delete(record.key);
      this.sortedKeys = undefined;
      return { type: 'delete', kv: { ...prevKv, modRevision: record.revision }, prevKv };
    }
    const value = deepFreeze(shareSubtrees(prevKv?.value, record.value, this.pool));
    const kv: KeyValue = { key: record.key, value, createRevision: record.createRevision, modRevision: record.revision };
    if (!prevKv) this.sortedKeys = undefined;
    this.entries.set(record.key, kv);
    return prevKv ? { type: 'put', kv, prevKv } : { type: 'put', kv };
  }

  /** Every live entry, for snapshots. */
  all(): IterableIterator<KeyValue> {
    return this.entries.values();
  }

  private commit(record: WriteRecord): { record: WriteRecord; event: WatchEvent } {
    return { record, event: this.apply(record) };
  }

  private existing(key: string, expected: number | undefined): KeyValue {
    const prev = this.entries.get(key);
    if (!prev) throw new KedgeError('NotFound', `key ${key} not found`);
    if (expected !== undefined && prev.modRevision !== expected) {
      throw new KedgeError('Conflict', `key ${key} is at revision ${prev.modRevision}, not ${expected}`);
    }
    return prev;
  }
}
