import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import type { StatefulSet } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { OwnerReference, Pod } from '../../../shared/types.js';
import { claimOwnersPatch, podRevision, statefulClaims, statefulPod, wantedClaimOwners } from './identity.js';
import { isRunningAndAvailable, isRunningAndReady, isTerminating } from './status.js';

/**
 * The pod steps of one StatefulSet pass (updateStatefulSet in stateful_set_control.go):
 * create missing ordinals (claims first), replace failed pods, delete ordinals beyond
 * replicas from the highest, then a RollingUpdate step from the highest ordinal down to the
 * partition. OrderedReady stops at the first pod not Running, Ready and available. Pure.
 */

export type PodAction =
  | { type: 'create'; pod: Pod; claims: PersistentVolumeClaim[] }
  | { type: 'createClaims'; pod: Pod; claims: PersistentVolumeClaim[] }
  | { type: 'delete'; pod: Pod; why: 'failed' | 'scaleDown' | 'update' }
  | { type: 'claimOwners'; claim: PersistentVolumeClaim; ownerReferences: OwnerReference[] };

export interface ReplicasInput {
  sts: StatefulSet;
  /** The set's pods (claimed, named `<set>-<ordinal>`), by ordinal. */
  byOrdinal: ReadonlyMap<number, Pod>;
  /** PersistentVolumeClaims in the set's namespace, by name. */
  claims: ReadonlyMap<string, PersistentVolumeClaim>;
  currentRevision: { name: string; template: PodTemplateSpec };
  updateRevision: { name: string; template: PodTemplateSpec };
  minReadyMs: number;
  now: number;
}

const isFinished = (pod: Pod): boolean => pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';

export function planReplicas(input: ReplicasInput): PodAction[] {
  const { sts, byOrdinal } = input;
  const start = sts.spec.ordinals?.start ?? 0;
  const end = start + (sts.spec.replicas ?? 1);
  const monotonic = sts.spec.podManagementPolicy !== 'Parallel';
  const healthy = (pod: Pod | undefined): pod is Pod => pod !== undefined && !isTerminating(pod) && isRunningAndAvailable(pod, input.minReadyMs, input.now) && isRunningAndReady(pod);
  const actions: PodAction[] = [...claimOwnerActions(input, start, end)];
  const stop = (): PodAction[] => actions;

  for (let ordinal = start; ordinal < end; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (!pod) {
      if (claimIsStale(input, ordinal)) return stop();
      const created = newVersionedPod(input, ordinal, start);
      actions.push({ type: 'create', pod: created, claims: missingClaims(input, ordinal) });
      if (monotonic) return stop();
      continue;
    }
    if (isFinished(pod)) {
      if (!isTerminating(pod)) actions.push({ type: 'delete', pod, why: 'failed' });
      if (monotonic) return stop();
      continue;
    }
    const missing = isTerminating(pod) ? [] : missingClaims(input, ordinal);
    if (missing.length > 0) actions.push({ type: 'createClaims', pod, claims: missing });
    if (monotonic && !healthy(pod)) return stop();
  }

  const condemned = [...byOrdinal].filter(([o]) => o < start || o >= end).sort(([a], [b]) => b - a).map(([, pod]) => pod);
  const firstUnhealthy = [...condemned].reverse().find((p) => !healthy(p));
  for (const pod of condemned) {
    if (isTerminating(pod)) {
      if (monotonic) return stop();
      continue;
    }
    if (monotonic && !healthy(pod) && pod !== firstUnhealthy) return stop();
    actions.push({ type: 'delete', pod, why: 'scaleDown' });
    if (monotonic) return stop();
  }
  return [...actions, ...rollingUpdateStep(input, start, end, healthy)];
}

/** One RollingUpdate step: delete the highest ordinal at or above the partition that is not at the update revision; wait on an unhealthy one. */
function rollingUpdateStep(input: ReplicasInput, start: number, end: number, healthy: (pod: Pod | undefined) => boolean): PodAction[] {
  const strategy = input.sts.spec.updateStrategy;
  if (strategy?.type === 'OnDelete') return [];
  const min = start + (strategy?.rollingUpdate?.partition ?? 0);
  for (let ordinal = end - 1; ordinal >= min; ordinal--) {
    const pod = input.byOrdinal.get(ordinal);
    if (pod && podRevision(pod) !== input.updateRevision.name && !isTerminating(pod)) return [{ type: 'delete', pod, why: 'update' }];
    if (!healthy(pod)) return [];
  }
  return [];
}

/** newVersionedStatefulSetPod: below the partition a RollingUpdate keeps the current revision; everything else gets the update revision. */
function newVersionedPod(input: ReplicasInput, ordinal: number, start: number): Pod {
  const strategy = input.sts.spec.updateStrategy;
  const partition = strategy?.rollingUpdate?.partition ?? input.sts.status?.currentReplicas ?? 0;
  const { name, template } = strategy?.type !== 'OnDelete' && ordinal < start + partition ? input.currentRevision : input.updateRevision;
  return statefulPod(input.sts, template, ordinal, name);
}

function missingClaims(input: ReplicasInput, ordinal: number): PersistentVolumeClaim[] {
  const owners = wantedClaimOwners(input.sts, undefined, true);
  return statefulClaims(input.sts, ordinal, owners).filter((c) => !input.claims.has(c.metadata.name!));
}

/** PodClaimIsStale: a claim still owned by an earlier pod of the ordinal (or going away) must be gone before the pod comes back. */
function claimIsStale(input: ReplicasInput, ordinal: number): boolean {
  return statefulClaims(input.sts, ordinal, []).some((c) => {
    const existing = input.claims.get(c.metadata.name!);
    return existing !== undefined && (Boolean(existing.metadata.deletionTimestamp) || (existing.metadata.ownerReferences ?? []).some((r) => r.kind === 'Pod'));
  });
}

/** ClaimsMatchRetentionPolicy / UpdatePodClaimForRetentionPolicy for every live pod's existing claims. */
function claimOwnerActions(input: ReplicasInput, start: number, end: number): PodAction[] {
  const out: PodAction[] = [];
  for (const [ordinal, pod] of input.byOrdinal) {
    if (isTerminating(pod)) continue;
    const wanted = wantedClaimOwners(input.sts, pod, ordinal >= start && ordinal < end);
    for (const template of statefulClaims(input.sts, ordinal, [])) {
      const claim = input.claims.get(template.metadata.name!);
      const ownerReferences = claim && claimOwnersPatch(claim, input.sts, pod, wanted);
      if (claim && ownerReferences) out.push({ type: 'claimOwners', claim, ownerReferences });
    }
  }
  return out;
}
