import type { KubeObject, OwnerReference } from '../../../shared/types.js';
import type { PropagationPolicy } from '../../client/client.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, hasFinalizer, isDeleting } from '../../client/deletion.js';
import { ownerReferencesOf, type GraphEntry } from './object-ref.js';

/**
 * The garbage collector's decisions, pure (kube's attemptToDeleteItem, processDeletingDependentsItem
 * and orphanDependents): what to do with a dependent given its owners, and with an owner that is
 * being deleted given its dependents.
 */

/**
 * An owner as a dependent sees it: `solid` (exists), `dangling` (gone, or replaced by another
 * object of the same name), `waiting` (being deleted in the foreground, waiting for its dependents).
 */
export type OwnerState = 'solid' | 'dangling' | 'waiting';

export interface ResolvedOwner {
  ref: OwnerReference;
  state: OwnerState;
}

export type GcAction =
  /** DELETE with a uid precondition, so a newer object of the same name is never hit. */
  | { type: 'delete'; target: GraphEntry; policy: PropagationPolicy }
  /** Remove the ownerReferences naming these owner uids. */
  | { type: 'dropOwnerRefs'; target: GraphEntry; owners: string[] }
  | { type: 'removeFinalizer'; target: GraphEntry; finalizer: string }
  /** Look at these objects again (dependents an owner in foreground deletion waits for). */
  | { type: 'recheck'; uids: string[] };

/** How an owner that still exists counts for its dependents. */
export function stateOfOwner(owner: KubeObject): OwnerState {
  return isDeleting(owner) && hasFinalizer(owner, FOREGROUND_FINALIZER) ? 'waiting' : 'solid';
}

/**
 * A dependent (the live object) and the states of its owners. With a solid owner left, it only
 * drops the references to the others; with none, it is deleted — in the foreground when an
 * owner waits for it and it has dependents of its own, else by the policy its finalizers name.
 */
export function planDependent(target: GraphEntry, owners: readonly ResolvedOwner[], hasDependents: boolean): GcAction[] {
  if (isDeleting(target.object) || owners.length === 0) return [];
  const solid = owners.filter((o) => o.state === 'solid');
  const unsolid = owners.filter((o) => o.state !== 'solid').map((o) => o.ref.uid);
  if (solid.length > 0) return unsolid.length > 0 ? [{ type: 'dropOwnerRefs', target, owners: unsolid }] : [];
  const waitedFor = owners.some((o) => o.state === 'waiting');
  if (waitedFor && hasDependents) return [{ type: 'delete', target, policy: 'Foreground' }];
  return [{ type: 'delete', target, policy: policyOf(target.object) }];
}

/**
 * An owner being deleted, and the dependents known to refer to it. `orphan`: every dependent
 * loses its reference, then the finalizer goes. `foregroundDeletion`: the finalizer goes once
 * no dependent blocks it (blockOwnerDeletion), else the blocking ones are looked at again.
 */
export function planOwner(owner: GraphEntry, dependents: readonly GraphEntry[]): GcAction[] {
  if (!isDeleting(owner.object)) return [];
  const uid = owner.object.metadata.uid!;
  if (hasFinalizer(owner.object, ORPHAN_FINALIZER)) {
    const drops: GcAction[] = dependents.map((target) => ({ type: 'dropOwnerRefs', target, owners: [uid] }));
    return [...drops, { type: 'removeFinalizer', target: owner, finalizer: ORPHAN_FINALIZER }];
  }
  if (!hasFinalizer(owner.object, FOREGROUND_FINALIZER)) return [];
  const blocking = dependents.filter((d) => ownerReferencesOf(d.object).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
  if (blocking.length === 0) return [{ type: 'removeFinalizer', target: owner, finalizer: FOREGROUND_FINALIZER }];
  const idle = blocking.filter((d) => !isDeleting(d.object)).map((d) => d.object.metadata.uid!);
  return idle.length > 0 ? [{ type: 'recheck', uids: idle }] : [];
}

/** A dependent keeps the deletion policy its own finalizers already ask for. */
function policyOf(object: KubeObject): PropagationPolicy {
  if (hasFinalizer(object, ORPHAN_FINALIZER)) return 'Orphan';
  if (hasFinalizer(object, FOREGROUND_FINALIZER)) return 'Foreground';
  return 'Background';
}
