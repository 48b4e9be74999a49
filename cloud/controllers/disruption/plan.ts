import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from '../../../shared/cluster-object-types.js';
import { allowedCondition, DISRUPTION_ALLOWED, withCondition } from '../../../shared/disruption-allowed.js';
import type { Pod } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { canonical } from '../endpoints/plan.js';
import { isPodReady } from '../endpoints/subsets.js';
import { scaledValue } from '../deployment/surge.js';

/** The controller of a pod and how many pods it wants (its scale), as the disruption controller's finders see it. */
export interface PodController {
  uid: string;
  replicas: number;
}

export type ControllerOf = (pod: Pod) => PodController | undefined;

export interface BudgetPlan {
  /** The status to write; undefined when the stored one is already it. */
  status?: PodDisruptionBudgetStatus;
  /** When to look again: the first disrupted pod's entry expires then. */
  recheckAt?: number;
}

/**
 * The status of a PodDisruptionBudget as kube's disruption controller computes it. Pure.
 * - expectedPods: the pods' controllers' scale (maxUnavailable, or a percentage minAvailable),
 *   else the pods selected (an integer minAvailable); a pod with no known controller in the first
 *   case fails the sync safe (nothing allowed, DisruptionAllowed False SyncFailed).
 * - currentHealthy: Ready pods not being deleted and not recently evicted (disruptedPods).
 * - disruptedPods: an eviction's entry stays until its pod is gone or deleted, or `timeoutMs` passed.
 */
export function planBudgetStatus(pdb: PodDisruptionBudget, pods: readonly Pod[], controllerOf: ControllerOf, now: number, timeoutMs: number): BudgetPlan {
  const { disruptedPods, recheckAt } = liveDisruptions(pdb, pods, now, timeoutMs);
  const counts = expectedAndDesired(pdb, pods, controllerOf);
  const generation = pdb.metadata.generation ?? 0;
  if ('error' in counts) return written(pdb, failSafe(pdb, counts.error, generation, now), recheckAt);
  const currentHealthy = pods.filter((p) => !p.metadata.deletionTimestamp && !disruptedPods[p.metadata.name ?? ''] && isPodReady(p)).length;
  const allowed = currentHealthy - counts.desiredHealthy;
  const disruptionsAllowed = counts.expectedPods <= 0 || allowed <= 0 ? 0 : allowed;
  const status: PodDisruptionBudgetStatus = {
    ...(Object.keys(disruptedPods).length > 0 && { disruptedPods }),
    currentHealthy, desiredHealthy: counts.desiredHealthy, expectedPods: counts.expectedPods, disruptionsAllowed, observedGeneration: generation,
    conditions: withCondition(pdb.status?.conditions, allowedCondition(disruptionsAllowed), timestamp(now)),
  };
  return written(pdb, status, recheckAt);
}

function written(pdb: PodDisruptionBudget, status: PodDisruptionBudgetStatus, recheckAt: number | undefined): BudgetPlan {
  const same = canonical(pdb.status ?? {}) === canonical(status);
  return { ...(!same && { status }), ...(recheckAt !== undefined && { recheckAt }) };
}

function failSafe(pdb: PodDisruptionBudget, message: string, generation: number, now: number): PodDisruptionBudgetStatus {
  const { currentHealthy = 0, desiredHealthy = 0, expectedPods = 0, disruptedPods } = pdb.status ?? {};
  const conditions = withCondition(pdb.status?.conditions, { type: DISRUPTION_ALLOWED, status: 'False', reason: 'SyncFailed', message }, timestamp(now));
  return { ...(disruptedPods && { disruptedPods }), currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed: 0, observedGeneration: generation, conditions };
}

/** buildDisruptedPodMap: entries of pods still there, not deleted, and not timed out. */
function liveDisruptions(pdb: PodDisruptionBudget, pods: readonly Pod[], now: number, timeoutMs: number): { disruptedPods: Record<string, string>; recheckAt?: number } {
  const recorded = pdb.status?.disruptedPods ?? {};
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const at = recorded[name];
    if (at === undefined || pod.metadata.deletionTimestamp) continue;
    const expires = Date.parse(at) + timeoutMs;
    if (expires < now) continue;
    disruptedPods[name] = at;
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
  }
  return { disruptedPods, ...(recheckAt !== undefined && { recheckAt }) };
}

/** getExpectedPodCount. */
function expectedAndDesired(pdb: PodDisruptionBudget, pods: readonly Pod[], controllerOf: ControllerOf): { expectedPods: number; desiredHealthy: number } | { error: string } {
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined) {
    const expected = expectedScale(pods, controllerOf);
    if (typeof expected === 'string') return { error: expected };
    return { expectedPods: expected, desiredHealthy: Math.max(0, expected - scaledValue(maxUnavailable, expected, true)) };
  }
  if (typeof minAvailable === 'number') return { expectedPods: pods.length, desiredHealthy: minAvailable };
  if (typeof minAvailable === 'string') {
    const expected = expectedScale(pods, controllerOf);
    if (typeof expected === 'string') return { error: expected };
    return { expectedPods: expected, desiredHealthy: scaledValue(minAvailable, expected, true) };
  }
  // Neither set: nothing is expected, so nothing may be disrupted (as kube).
  return { expectedPods: 0, desiredHealthy: 0 };
}

/** getExpectedScale: the sum of the scale of every controller of the pods, once each; an error names a pod without one. */
function expectedScale(pods: readonly Pod[], controllerOf: ControllerOf): number | string {
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const controller = controllerOf(pod);
    if (!controller) return `found no controllers for pod ${JSON.stringify(pod.metadata.name ?? '')}`;
    scales.set(controller.uid, controller.replicas);
  }
  return [...scales.values()].reduce((a, b) => a + b, 0);
}
