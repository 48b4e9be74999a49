import type { Observable } from 'rxjs';

/**
 * The cloud's single source of truth: a revisioned key-value store with etcd semantics.
 *
 * - Every successful write bumps one global `revision`; the written entry's `modRevision`
 *   is that revision (the apiserver uses it as `metadata.resourceVersion`).
 * - `update`/`delete` take an optional expected modRevision: compare-and-set, Conflict on mismatch.
 * - `list(prefix, {revision, fromKey, limit})` reads a page as of a revision still in history
 *   (etcd: not compacted; embedded stores: within every window the prefix spans).
 * - `watch(prefix, afterRevision)` replays retained history after that revision, then follows
 *   live writes. History is a bounded window: asking for a revision older than the window
 *   (or compacted away) fails with an Expired (410) KedgeError.
 * - Values are JSON objects. The store freezes what it keeps; readers must copy before mutating.
 */
export interface KeyValue<V = unknown> {
  key: string;
  value: V;
  createRevision: number;
  modRevision: number;
}

export interface WatchEvent<V = unknown> {
  type: 'put' | 'delete';
  /** For put: the new entry. For delete: the entry as it was, with modRevision = the delete's revision. */
  kv: KeyValue<V>;
  /** The entry before this write, if any. */
  prevKv?: KeyValue<V>;
}

export interface ListResult<V = unknown> {
  items: KeyValue<V>[];
  /** The store revision the list reflects (a watch from here misses nothing). */
  revision: number;
  /** How many entries (from `fromKey` on) a `limit` left out: 0 when none. */
  remaining?: number;
}

/** A page of a list, as etcd ranges: at a revision, from a key, at most `limit` entries. */
export interface ListOptions {
  /** Read as of this revision (default: the current one). Older than the history kept: Expired; newer than the store: Timeout. */
  revision?: number;
  /** Start at this key (inclusive) instead of the prefix's first. */
  fromKey?: string;
  /** At most this many entries; `remaining` says how many more there are. */
  limit?: number;
}

export interface Store {
  /** The current global revision (0 for an empty store). */
  readonly revision: number;
  get(key: string): Promise<KeyValue | undefined>;
  /** Every entry whose key starts with `prefix`, sorted by key (a page of them, with `options`). */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Fails with AlreadyExists if the key exists. */
  create(key: string, value: unknown): Promise<KeyValue>;
  /** Fails with NotFound if absent, Conflict if `expectedModRevision` is given and differs. */
  update(key: string, value: unknown, expectedModRevision?: number): Promise<KeyValue>;
  /** Fails with NotFound if absent, Conflict if `expectedModRevision` is given and differs. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Events for keys under `prefix` with revision > `afterRevision`. */
  watch(prefix: string, afterRevision: number): Observable<WatchEvent>;
  /** Forgets history at or before `revision`; later watches from there get Expired. */
  compact(revision: number): Promise<void>;
  /** Oldest revision a watch may start after. */
  readonly compactedRevision: number;
  close(): Promise<void>;
}
