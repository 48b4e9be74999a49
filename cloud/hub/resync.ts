import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { SyncedKind, SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { KubeObject, Pod } from '../../shared/types.js';

/** resourceVersions are decimal revisions: compare them as numbers. Missing or junk sorts first. */
export function rvValue(rv: string | undefined): bigint {
  return rv !== undefined && /^\d{1,30}$/.test(rv) ? BigInt(rv) : -1n;
}

/** True when `rv` is strictly newer than `than`. */
export function isNewer(rv: string | undefined, than: string | undefined): boolean {
  return rvValue(rv) > rvValue(than);
}

/** The ref naming this version of an object of `kind`. */
export function objectRef(kind: string, object: KubeObject): ObjectRef {
  const { namespace, name = '', uid = '', resourceVersion } = object.metadata;
  const ref: ObjectRef = { kind, name, uid };
  if (namespace !== undefined) ref.namespace = namespace;
  if (resourceVersion !== undefined) ref.resourceVersion = resourceVersion;
  return ref;
}

export const podRef = (pod: Pod): ObjectRef => objectRef('Pod', pod);

/** One object a node should hold, and the ref of its version. */
export interface Desired {
  ref: ObjectRef & { kind: SyncedKind };
  object: SyncedObject;
}

export const desiredOf = (kind: SyncedKind, object: SyncedObject): Desired => ({ ref: objectRef(kind, object) as Desired['ref'], object: withoutManagedFields(object) });

/** metadata.managedFields are the API's bookkeeping of who set what: they never go down to an edge. */
function withoutManagedFields(object: SyncedObject): SyncedObject {
  if (!('managedFields' in object.metadata)) return object;
  const { managedFields: _owners, ...metadata } = object.metadata as typeof object.metadata & { managedFields?: unknown };
  return { ...object, metadata } as SyncedObject;
}

export interface ResyncPlan {
  /** Newest version of every wanted object the edge lacks or holds at an older resourceVersion. */
  applies: Desired[];
  /** Tombstones for every held uid the cloud no longer wants. */
  deletes: ObjectRef[];
}

/**
 * [SYNC-10] The answer to a hello: exactly the difference between what the node should hold
 * (`wanted`: its pods and the objects they reference) and what it says it holds. An object
 * held under the same name but another uid is both applied (new uid) and deleted (old uid).
 * Referenced objects go before pods, so a pod finds what it references. Pure.
 */
export function planResync(wanted: Iterable<Desired>, holds: readonly ObjectRef[]): ResyncPlan {
  const held = new Map(holds.map((ref) => [ref.uid, ref]));
  const uids = new Set<string>();
  const applies: Desired[] = [];
  for (const want of wanted) {
    const { uid } = want.ref;
    if (!uid) continue;
    uids.add(uid);
    const have = held.get(uid);
    if (!have || isNewer(want.ref.resourceVersion, have.resourceVersion)) applies.push(want);
  }
  const deletes = [...held.values()].filter((ref) => !uids.has(ref.uid));
  applies.sort((a, b) => byKey(a.ref, b.ref));
  deletes.sort(byKey);
  return { applies, deletes };
}

const sortKey = (ref: ObjectRef): string => `${ref.kind === 'Pod' ? 1 : 0}/${ref.namespace ?? ''}/${ref.name}/${ref.kind}`;
const byKey = (a: ObjectRef, b: ObjectRef): number => sortKey(a).localeCompare(sortKey(b));
