import type { ObjectRef } from '../../shared/protocol/envelope.js';

/** What the rule needs to know about an object the cache holds. */
export interface HeldVersion {
  uid: string;
  resourceVersion?: string;
}

export type VersionOrder = 'newer' | 'same' | 'older' | 'unordered';

const DIGITS = /^\d+$/;

/**
 * How `incoming` compares with `cached`. kedge's resourceVersions are the store's global
 * revision (integers), so two versions are ordered even across objects; anything else is
 * only equal or `unordered`.
 */
export function compareVersions(incoming: string | undefined, cached: string | undefined): VersionOrder {
  if (cached === undefined) return incoming === undefined ? 'same' : 'newer';
  if (incoming === undefined) return 'older';
  if (DIGITS.test(incoming) && DIGITS.test(cached)) {
    const a = BigInt(incoming);
    const b = BigInt(cached);
    return a > b ? 'newer' : a < b ? 'older' : 'same';
  }
  return incoming === cached ? 'same' : 'unordered';
}

/** True when `incoming` is newer than `cached` (an unordered pair counts as newer: the cloud sent it last). */
export function isNewerVersion(incoming: string | undefined, cached: string | undefined): boolean {
  const order = compareVersions(incoming, cached);
  return order === 'newer' || order === 'unordered';
}

export type ApplyPlan =
  | { store: false; why: 'tombstoned' | 'not newer' | 'superseded'; tombstone?: string }
  | { store: true; outcome: 'created' | 'updated' | 'replaced'; replaces?: string; tombstone?: string };

/**
 * [SYNC-6][SYNC-13] Whether an `apply` is stored, as a pure function of what the cache holds:
 * - a tombstoned uid is never stored again (Kubernetes never reuses a uid);
 * - the same uid is stored only at a newer resourceVersion;
 * - under a name another uid holds, the higher resourceVersion wins: an object's whole life
 *   precedes its successor's under the same name, so the loser is dead and is tombstoned.
 *   Unordered versions keep the old rule (the incoming one replaces) without a tombstone.
 */
export function planApply(ref: ObjectRef, held: HeldVersion | undefined, rival: HeldVersion | undefined, tombstoned: boolean): ApplyPlan {
  if (tombstoned) return { store: false, why: 'tombstoned' };
  if (held) return isNewerVersion(ref.resourceVersion, held.resourceVersion) ? { store: true, outcome: 'updated' } : { store: false, why: 'not newer' };
  if (!rival) return { store: true, outcome: 'created' };
  const order = compareVersions(ref.resourceVersion, rival.resourceVersion);
  if (order === 'newer') return { store: true, outcome: 'replaced', replaces: rival.uid, tombstone: rival.uid };
  // Older than the object now under its name: a stale message for a dead uid.
  if (order === 'older') return { store: false, why: 'superseded', tombstone: ref.uid };
  return { store: true, outcome: 'replaced', replaces: rival.uid };
}
