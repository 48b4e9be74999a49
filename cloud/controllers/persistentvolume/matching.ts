import { selectorMatches } from '../../../shared/label-selector.js';
import { parseQuantity } from '../../../shared/quantity.js';
import { claimClass, type PersistentVolume, type PersistentVolumeClaim } from '../../../shared/storage-types.js';
import { matchesTerm, type NodeSelectorTerm } from '../../scheduler/node-affinity.js';

/**
 * Which PersistentVolume a claim may bind to, as kube's persistentvolume-controller and the
 * scheduler's VolumeBinding plugin decide it (FindMatchingVolume): pure, shared by both.
 */

/** A storage quantity in nano-units (0 when absent or malformed), for comparisons. */
export function storageNanos(value: unknown): bigint {
  const parsed = parseQuantity(value);
  return parsed.ok && !parsed.negative ? parsed.nanos : 0n;
}

/** The volume's claimRef names this claim (and, once it has one, its uid). */
export function isBoundTo(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec.claimRef;
  if (!ref || ref.name !== claim.metadata.name || (ref.namespace ?? '') !== (claim.metadata.namespace ?? '')) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** The volume's required node affinity holds for a node with these labels (no affinity: any node). */
export function volumeFitsNode(pv: PersistentVolume, labels: Readonly<Record<string, string>>, nodeName: string): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms as NodeSelectorTerm[] | undefined;
  if (!terms) return true;
  return terms.some((term) => matchesTerm(term, labels, { 'metadata.name': nodeName }));
}

/** Every mode the claim asks for is one the volume offers. */
export function offersModes(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const offered = pv.spec.accessModes ?? [];
  return (claim.spec.accessModes ?? []).every((m) => offered.includes(m));
}

export interface MatchOptions {
  /** The claim's class binds late (WaitForFirstConsumer): only volumes pre-bound to it count, unless a node is given. */
  delayBinding: boolean;
  /** The node the claim's pod goes to: volumes must fit it. */
  node?: { name: string; labels: Readonly<Record<string, string>> };
}

/**
 * The volume for a claim: one pre-bound to it (claimRef) if it is big enough, else the smallest
 * Available, unclaimed volume of the claim's class and volume mode that offers its access modes,
 * holds its request and matches its selector (and fits the node, when one is given).
 */
export function findBestVolume(claim: PersistentVolumeClaim, volumes: Iterable<PersistentVolume>, options: MatchOptions): PersistentVolume | undefined {
  const requested = storageNanos(claim.spec.resources?.requests?.storage);
  const wantedMode = claim.spec.volumeMode ?? 'Filesystem';
  let best: PersistentVolume | undefined;
  let bestSize = 0n;
  for (const pv of volumes) {
    const size = storageNanos(pv.spec.capacity?.storage);
    if (size < requested || (pv.spec.volumeMode ?? 'Filesystem') !== wantedMode || pv.metadata.deletionTimestamp) continue;
    const fitsNode = !options.node || volumeFitsNode(pv, options.node.labels, options.node.name);
    if (isBoundTo(pv, claim)) return fitsNode ? pv : undefined;
    if (options.delayBinding && !options.node) continue;
    if (pv.spec.claimRef || pv.status?.phase !== 'Available' || !fitsNode) continue;
    if (claim.spec.selector && !selectorMatches(claim.spec.selector, pv.metadata.labels)) continue;
    if ((pv.spec.storageClassName ?? '') !== claimClass(claim) || !offersModes(pv, claim)) continue;
    if (!best || size < bestSize) [best, bestSize] = [pv, size];
  }
  return best;
}
