import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { tooLargeResourceVersion } from '../../store/list-at.js';
import type { Store } from '../../store/store.js';
import { storePrefix, type ResourceDef } from '../kinds/registry.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { revisionOf, validateListQuery, type ListQuery } from './list-options.js';
import { toObject } from './storage.js';

/** One page of a list, with kube's ListMeta. */
export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ListSpec {
  store: Store;
  def: ResourceDef;
  namespace: string | undefined;
  query: ListQuery;
  matches: (obj: KubeObject) => boolean;
  /** A label or field selector filters (then no remainingItemCount, as kube). */
  filtered: boolean;
}

/** Where a list reads: at which revision (undefined: the newest, at least `atLeast`), from which key, how many. */
interface ReadPoint {
  revision: number | undefined;
  fromKey: string | undefined;
  limit: number;
  atLeast?: number;
}

const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';
const CONTINUE_TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, ' +
  'or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - ' +
  'objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
/** kube-apiserver's etcd3 store grows its range requests up to this while a selector leaves a page short. */
const MAX_BATCH = 10_000;

/** A list as kube-apiserver 1.32 answers it: limit, continue, resourceVersion and resourceVersionMatch. */
export async function readList(spec: ListSpec): Promise<ListPage> {
  validateListQuery(spec.query);
  const prefix = storePrefix(spec.def, spec.namespace);
  const point = readPoint(spec.query, prefix);
  try {
    return await readPages(spec, prefix, point);
  } catch (err) {
    if (!isKedgeError(err, 'Expired')) throw err;
    if (spec.query.continueToken === undefined) throw new KedgeError('Expired', LIST_TOO_OLD);
    throw new KedgeError('Expired', CONTINUE_TOO_OLD, { continueToken: encodeContinue(point.fromKey!, prefix, -1) });
  }
}

function readPoint(query: ListQuery, prefix: string): ReadPoint {
  const rv = query.resourceVersion;
  if (query.continueToken !== undefined) {
    if (rv !== undefined && rv !== '0') throw new KedgeError('BadRequest', 'specifying resource version is not allowed when using continue');
    const token = decodeContinue(query.continueToken, prefix);
    return { revision: token.revision === -1 ? undefined : token.revision, fromKey: token.fromKey, limit: query.limit };
  }
  if (rv === undefined) return { revision: undefined, fromKey: undefined, limit: query.limit };
  const wanted = revisionOf(rv);
  // "0" is "any version": kube 1.32 serves it from its watch cache, which ignores limit.
  if (wanted === 0) return { revision: undefined, fromKey: undefined, limit: 0 };
  const exact = query.resourceVersionMatch === 'Exact' || (query.resourceVersionMatch === undefined && query.limit > 0);
  // Exact: the store refuses a revision it has not reached. Not older than: the answer says
  // how new the store is (an etcd store's own `revision` may lag another cloud's writes).
  return exact ? { revision: wanted, fromKey: undefined, limit: query.limit } : { revision: undefined, fromKey: undefined, limit: query.limit, atLeast: wanted };
}

/** Reads ranges until `limit` objects pass the selector or the range ends, as kube's etcd3 store does. */
async function readPages(spec: ListSpec, prefix: string, point: ReadPoint): Promise<ListPage> {
  const { limit } = point;
  const items: KubeObject[] = [];
  let revision = point.revision;
  let fromKey = point.fromKey;
  let batch = limit;
  let lastKey: string | undefined;
  let more = false;
  let remaining = 0;
  for (;;) {
    const res = await spec.store.list(prefix, { revision, fromKey, limit: limit > 0 ? batch : undefined });
    if (point.atLeast !== undefined && res.revision < point.atLeast) throw tooLargeResourceVersion(point.atLeast, res.revision);
    revision ??= res.revision;
    remaining = res.remaining ?? 0;
    more = remaining > 0;
    for (const kv of res.items) {
      if (limit > 0 && items.length >= limit) {
        more = true;
        break;
      }
      lastKey = kv.key;
      const obj = toObject(spec.def, kv);
      if (spec.matches(obj)) items.push(obj);
    }
    if (!more || limit === 0 || items.length >= limit || lastKey === undefined) break;
    fromKey = `${lastKey}\u0000`;
    batch = Math.min(batch * 2, Math.max(MAX_BATCH, limit));
  }
  const page: ListPage = { items, resourceVersion: String(revision) };
  if (!more || lastKey === undefined) return page;
  page.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
  if (!spec.filtered) page.remainingItemCount = remaining;
  return page;
}
