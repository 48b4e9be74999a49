import type { CacheEvent } from '../../cloud/informer/informer.js';
import type { ReferenceAction } from '../../cloud/hub/reference-index.js';

/** The informer event of a table-driven plan step (MODIFIED with `old`, or the object itself). */
export function cacheEvent<T>(type: CacheEvent<T>['type'], object: T, old?: T): CacheEvent<T> {
  if (type === 'MODIFIED') return { type, object, old: old ?? object };
  return type === 'SYNCED' ? { type } : { type, object };
}

/** A planned action as one line: "edge-1 want Kind/name uid@rv" or "edge-1 unwant uid". */
export const actionLine = (a: ReferenceAction): string =>
  a.type === 'want' ? `${a.node} want ${a.object.ref.kind}/${a.object.ref.name} ${a.object.ref.uid}@${a.object.ref.resourceVersion}` : `${a.node} unwant ${a.uid}`;
