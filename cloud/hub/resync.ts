import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';

/** resourceVersions are decimal revisions: compare them as numbers. Missing or junk sorts first. */
export function rvValue(rv: string | undefined): bigint {
  return rv !== undefined && /^\d{1,30}$/.test(rv) ? BigInt(rv) : -1n;
}

/** True when `rv` is strictly newer than `than`. */
export function isNewer(rv: string | undefined, than: string | undefined): boolean {
  return rvValue(rv) > rvValue(than);
}

export function podRef(pod: Pod): ObjectRef {
  const { namespace, name = '', uid = '', resourceVersion } = pod.metadata;
  const ref: ObjectRef = { kind: 'Pod', name, uid };
  if (namespace !== undefined) ref.namespace = namespace;
  if (resourceVersion !== undefined) ref.resourceVersion = resourceVersion;
  return ref;
}

export interface ResyncPlan {
  /** Newest version of every wanted pod the edge lacks or holds at an older resourceVersion. */
  applies: Pod[];
  /** Tombstones for every held uid the cloud no longer wants. */
  deletes: ObjectRef[];
}

/**
 * [SYNC-10] The answer to a hello: exactly the difference between what the node should hold
 * (`desired`, the pods bound to it) and what it says it holds. A pod held under the same name
 * but another uid is both applied (new uid) and deleted (old uid). Pure.
 */
export function planResync(desired: Iterable<Pod>, holds: readonly ObjectRef[]): ResyncPlan {
  const held = new Map(holds.map((ref) => [ref.uid, ref]));
  const wanted = new Set<string>();
  const applies: Pod[] = [];
  for (const pod of desired) {
    const uid = pod.metadata.uid;
    if (!uid) continue;
    wanted.add(uid);
    const have = held.get(uid);
    if (!have || isNewer(pod.metadata.resourceVersion, have.resourceVersion)) applies.push(pod);
  }
  const deletes = [...held.values()].filter((ref) => !wanted.has(ref.uid));
  const byKey = (a: { namespace?: string; name?: string }, b: { namespace?: string; name?: string }): number =>
    `${a.namespace ?? ''}/${a.name ?? ''}`.localeCompare(`${b.namespace ?? ''}/${b.name ?? ''}`);
  applies.sort((a, b) => byKey(a.metadata, b.metadata));
  deletes.sort(byKey);
  return { applies, deletes };
}
