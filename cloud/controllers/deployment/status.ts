import { REVISION_ANNOTATION, type Deployment, type DeploymentStatus } from '../../../shared/apps-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { stableJson } from '../../client/object-meta.js';
import { findCondition, newCondition, Reasons, removeCondition, setCondition } from './conditions.js';
import { sumSpec, sumStatus } from './replica-sets.js';
import type { Rollout } from './rollout.js';
import { desiredReplicas, maxUnavailable } from './surge.js';

/** A Deployment's status from its ReplicaSets (calculateStatus), with the Available condition. Pure. */
export function calculateStatus(r: Rollout): DeploymentStatus {
  const { d, now } = r;
  const all = r.all;
  const available = sumStatus(all, 'availableReplicas');
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: sumStatus(all, 'replicas'),
    updatedReplicas: r.newRS?.status?.replicas ?? 0,
    readyReplicas: sumStatus(all, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumSpec(all) - available),
  };
  const enough = available >= desiredReplicas(d) - maxUnavailable(d);
  const condition = enough
    ? newCondition('Available', 'True', Reasons.available, 'Deployment has minimum availability.', now)
    : newCondition('Available', 'False', Reasons.unavailable, 'Deployment does not have minimum availability.', now);
  status.conditions = setCondition(r.conditions, condition);
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  return status;
}

/** All replicas updated and available, and the latest spec observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus | undefined): boolean {
  const want = desiredReplicas(d);
  return (s?.updatedReplicas ?? 0) === want && (s?.replicas ?? 0) === want && (s?.availableReplicas ?? 0) === want && (s?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** Any sign of progress since the last status: more updated, fewer old, more ready or available. */
function deploymentProgressing(d: Deployment, next: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const nextOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || nextOld < oldOld || (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

const deadlineMs = (r: Rollout): number => scaledMs(r.timing, r.d.spec.progressDeadlineSeconds ?? 0);

function timedOut(r: Rollout, next: DeploymentStatus): boolean {
  const cond = findCondition(next.conditions, 'Progressing');
  if (!r.hasProgressDeadline || !cond || cond.reason === Reasons.newRSAvailable) return false;
  if (cond.reason === Reasons.timedOut) return true;
  return Date.parse(cond.lastUpdateTime ?? '') + deadlineMs(r) < r.now;
}

/**
 * syncRolloutStatus: the status with the Progressing condition (progressed, progressing, or
 * past its deadline), written when it changed; else a wake-up for when the deadline passes.
 */
export function finishRollout(r: Rollout, withProgress = true): void {
  const { d, now } = r;
  let next = calculateStatus(r);
  const current = findCondition(r.conditions, 'Progressing');
  const name = r.newRS?.metadata.name;
  if (!r.hasProgressDeadline) next.conditions = removeCondition(next.conditions ?? [], 'Progressing');
  const settled = next.replicas === next.updatedReplicas && current?.reason === Reasons.newRSAvailable;
  if (withProgress && r.hasProgressDeadline && !settled) next = withProgressCondition(r, next, current, name);
  // Status first: it is written compare-and-set on the resourceVersion the plan saw.
  const changed = stableJson(next) !== stableJson(d.status ?? {});
  if (changed) r.actions.push({ type: 'status', status: next });
  if (r.revision !== undefined && d.metadata.annotations?.[REVISION_ANNOTATION] !== r.revision) {
    r.actions.push({ type: 'annotateDeployment', annotations: { [REVISION_ANNOTATION]: r.revision } });
  }
  const wake = withProgress && !changed ? stuckWakeUp(r, next, current, now) : undefined;
  if (wake !== undefined) r.actions.push({ type: 'requeueAfter', ms: wake });
}

function withProgressCondition(r: Rollout, next: DeploymentStatus, current: ReturnType<typeof findCondition>, name: string | undefined): DeploymentStatus {
  const { d, now } = r;
  const conditions = next.conditions ?? [];
  if (deploymentComplete(d, next)) {
    return { ...next, conditions: setCondition(conditions, newCondition('Progressing', 'True', Reasons.newRSAvailable, `ReplicaSet "${name}" has successfully progressed.`, now)) };
  }
  if (deploymentProgressing(d, next)) {
    const message = name ? `ReplicaSet "${name}" is progressing.` : `Deployment "${d.metadata.name}" is progressing.`;
    const cond = newCondition('Progressing', 'True', Reasons.rsUpdated, message, now);
    if (current?.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
    return { ...next, conditions: [...removeCondition(conditions, 'Progressing'), cond] };
  }
  if (timedOut(r, next)) {
    const message = `ReplicaSet "${name}" has timed out progressing.`;
    return { ...next, conditions: setCondition(conditions, newCondition('Progressing', 'False', Reasons.timedOut, message, now)) };
  }
  return next;
}

/** requeueStuckDeployment: look again just after the progress deadline of a rollout that is not moving. */
function stuckWakeUp(r: Rollout, next: DeploymentStatus, current: ReturnType<typeof findCondition>, now: number): number | undefined {
  if (!r.hasProgressDeadline || !current || deploymentComplete(r.d, next)) return undefined;
  // Only a rollout under way can time out (DeploymentTimedOut ignores the others).
  if (current.reason === Reasons.timedOut || current.reason === Reasons.newRSAvailable) return undefined;
  const second = scaledMs(r.timing, 1);
  const after = Date.parse(current.lastUpdateTime ?? '') + deadlineMs(r) - now;
  if (Number.isNaN(after)) return undefined;
  return after < second ? second : after + second;
}
