import {
  ANN_BIND_COMPLETED,
  ANN_SELECTED_NODE,
  claimClass,
  NO_PROVISIONER,
  podClaimNames,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type StorageClass,
} from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { findBestVolume, volumeFitsNode } from '../controllers/persistentvolume/matching.js';
import type { Offer } from './filters.js';

/**
 * kube-scheduler's VolumeBinding plugin in miniature, pure: PreFilter sorts the pod's claims
 * (missing or unbound Immediate ones make it unschedulable at once), Filter checks each node
 * against them, and after a pick the claims that wait for their first consumer learn the node
 * (volume.kubernetes.io/selected-node); the pod is bound once they are bound.
 */

export const REASON_VOLUME_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_VOLUME_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const REASON_VOLUME_MISSING = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

/** What the scheduler knows of claims, volumes and classes (its informers' caches). */
export interface VolumeLookup {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  storageClass(name: string): StorageClass | undefined;
  volumes(): Iterable<PersistentVolume>;
}

export type VolumeCheck =
  /** The pod names no claim. */
  | { type: 'none' }
  /** No node can help (PreFilter's UnschedulableAndUnresolvable): the message says why. */
  | { type: 'unschedulable'; message: string }
  /** Filter each node with `filter`; `toBind` are the claims not bound yet (all WaitForFirstConsumer). */
  | { type: 'check'; filter: (offer: Offer) => readonly string[]; toBind: readonly PersistentVolumeClaim[] };

const fullyBound = (claim: PersistentVolumeClaim): boolean => Boolean(claim.spec.volumeName) && claim.metadata.annotations?.[ANN_BIND_COMPLETED] !== undefined;

export function volumePreFilter(pod: Pod, lookup: VolumeLookup): VolumeCheck {
  const names = podClaimNames(pod);
  if (names.length === 0) return { type: 'none' };
  const namespace = pod.metadata.namespace ?? 'default';
  const bound: PersistentVolumeClaim[] = [];
  const toBind: PersistentVolumeClaim[] = [];
  for (const name of names) {
    const claim = lookup.claim(namespace, name);
    if (!claim) return { type: 'unschedulable', message: `persistentvolumeclaim ${JSON.stringify(name)} not found` };
    if (claim.metadata.deletionTimestamp) return { type: 'unschedulable', message: `persistentvolumeclaim ${JSON.stringify(name)} is being deleted` };
    if (fullyBound(claim)) bound.push(claim);
    else if (lookup.storageClass(claimClass(claim))?.volumeBindingMode === 'WaitForFirstConsumer') toBind.push(claim);
    else return { type: 'unschedulable', message: UNBOUND_IMMEDIATE };
  }
  const boundVolumes = bound.map((c) => lookup.volume(c.spec.volumeName!));
  return { type: 'check', toBind, filter: (offer) => filterNode(offer, boundVolumes, toBind, lookup) };
}

function filterNode(offer: Offer, boundVolumes: readonly (PersistentVolume | undefined)[], toBind: readonly PersistentVolumeClaim[], lookup: VolumeLookup): readonly string[] {
  const reasons: string[] = [];
  if (boundVolumes.some((v) => v === undefined)) reasons.push(REASON_VOLUME_MISSING);
  else if (boundVolumes.some((v) => !volumeFitsNode(v!, offer.labels, offer.name))) reasons.push(REASON_VOLUME_NODE_CONFLICT);
  if (!toBind.every((claim) => canBindOn(claim, offer, lookup))) reasons.push(REASON_VOLUME_BIND_CONFLICT);
  return reasons;
}

/** A claim waiting for its consumer can be satisfied on this node: it was promised to it, or a volume there matches, or its class provisions. */
function canBindOn(claim: PersistentVolumeClaim, offer: Offer, lookup: VolumeLookup): boolean {
  const selected = claim.metadata.annotations?.[ANN_SELECTED_NODE];
  if (selected !== undefined) return selected === offer.name;
  if (findBestVolume(claim, lookup.volumes(), { delayBinding: true, node: { name: offer.name, labels: offer.labels } })) return true;
  const provisioner = lookup.storageClass(claimClass(claim))?.provisioner;
  return provisioner !== undefined && provisioner !== NO_PROVISIONER;
}

export type AfterPick =
  /** Every claim is bound: bind the pod. */
  | { type: 'bind' }
  /** Tell these claims the node (selected-node); the pod waits until they are bound. */
  | { type: 'selectNode'; claims: readonly PersistentVolumeClaim[] }
  /** The claims know the node already and are being bound: the pod waits. */
  | { type: 'wait' };

export function afterPick(check: VolumeCheck): AfterPick {
  if (check.type !== 'check' || check.toBind.length === 0) return { type: 'bind' };
  const unselected = check.toBind.filter((c) => c.metadata.annotations?.[ANN_SELECTED_NODE] === undefined);
  return unselected.length > 0 ? { type: 'selectNode', claims: unselected } : { type: 'wait' };
}
