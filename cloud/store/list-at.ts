import { KedgeError } from '../../shared/errors.js';
import type { KeyValue, ListOptions, ListResult, WatchEvent } from './store.js';

/** kube's error for a read at a revision the store has not reached (storage.NewTooLargeResourceVersionError). */
export function tooLargeResourceVersion(wanted: number, current: number): KedgeError {
  return new KedgeError('Timeout', `Timeout: Too large resource version: ${wanted}, current: ${current}`, {
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
  });
}

/** What an embedded store knows when it answers a page: its entries now and the history that undoes them. */
export interface ListSource {
  /** The entries under the prefix from the page's first key, sorted, as of `revision`. */
  current: KeyValue[];
  revision: number;
  /** The events under the prefix after a revision, oldest first (Expired if forgotten). */
  eventsAfter: (revision: number) => WatchEvent[];
}

/**
 * A page as of `options.revision`: today's entries with every later write undone (each
 * event's prevKv is the entry before it), sorted and cut at `limit`.
 */
export function listAt(source: ListSource, options: ListOptions): ListResult {
  const at = options.revision ?? source.revision;
  if (at > source.revision) throw tooLargeResourceVersion(at, source.revision);
  const entries = at === source.revision ? source.current : undo(source, at, options.fromKey ?? '');
  if (options.limit === undefined || options.limit <= 0 || entries.length <= options.limit) return { items: entries, revision: at, remaining: 0 };
  return { items: entries.slice(0, options.limit), revision: at, remaining: entries.length - options.limit };
}

function undo(source: ListSource, at: number, fromKey: string): KeyValue[] {
  const before = new Map<string, KeyValue | undefined>();
  const events = source.eventsAfter(at);
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kv.modRevision <= source.revision && e.kv.key >= fromKey) before.set(e.kv.key, e.prevKv);
  }
  if (before.size === 0) return source.current;
  const kept = source.current.filter((kv) => !before.has(kv.key));
  for (const kv of before.values()) if (kv) kept.push(kv);
  return kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
