import { type PodDisruptionBudget } from '../../../shared/cluster-object-types.js';
import { allowedCondition, withCondition } from '../../../shared/disruption-allowed.js';
import { KedgeError } from '../../../shared/errors.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import type { Pod } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { podDisruptionBudgetResource } from '../kinds/cluster-object-resources.js';
import type { RestDeps } from '../rest/rest-context.js';

/** Evictions the disruption controller has not confirmed yet, at most (kube's MaxDisruptedPodSize). */
const MAX_DISRUPTED_PODS = 2000;

const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** canIgnorePDB: a pod that is done, not started, or already going may go whatever its budget says. */
function ignoresBudget(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined;
}

/** The words kube answers a refused eviction with: 429, and a DisruptionBudget cause saying why. */
function refused(why: string): KedgeError {
  return new KedgeError('TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", { details: { causes: [{ reason: 'DisruptionBudget', message: why }] } });
}

/**
 * EvictionREST's budget check, before the pod is deleted: the one PodDisruptionBudget that
 * selects the pod must allow a disruption, and the eviction takes it (disruptionsAllowed - 1,
 * the pod recorded in disruptedPods, so the controller does not count it healthy meanwhile).
 * Throws 429 TooManyRequests when the budget allows none (kubectl drain waits and retries),
 * 500 when more than one budget selects the pod. `dryRun`: checked, nothing written.
 */
export async function takeDisruption(deps: RestDeps, pod: Pod, dryRun: boolean): Promise<void> {
  if (ignoresBudget(pod)) return;
  const namespace = pod.metadata.namespace;
  const all = (await deps.storage.list(podDisruptionBudgetResource, namespace)).items as PodDisruptionBudget[];
  const budgets = all.filter((pdb) => selectorMatches(pdb.spec?.selector, pod.metadata.labels));
  if (budgets.length > 1) throw new KedgeError('Internal', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const pdb = budgets[0];
  if (!pdb || unhealthyMayGo(pdb, pod)) return;
  const take = (latest: PodDisruptionBudget): PodDisruptionBudget => decremented(latest, pod.metadata.name ?? '', deps.clock.now());
  if (dryRun) return void take(structuredClone(pdb));
  await deps.storage.guaranteedUpdate(podDisruptionBudgetResource, namespace, pdb.metadata.name!, (latest) => take(latest as PodDisruptionBudget));
}

/** An unready pod does not count as healthy: it may go when the policy says always, or the budget is met without it. */
function unhealthyMayGo(pdb: PodDisruptionBudget, pod: Pod): boolean {
  if (isReady(pod)) return false;
  if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
  const { currentHealthy = 0, desiredHealthy = 0 } = pdb.status ?? {};
  return currentHealthy >= desiredHealthy && desiredHealthy > 0;
}

/** checkAndDecrement: the budget with one disruption taken, or the reason it cannot be. Mutates `pdb`. */
function decremented(pdb: PodDisruptionBudget, podName: string, now: number): PodDisruptionBudget {
  const name = pdb.metadata.name ?? '';
  const status = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) refusedStale(name);
  if (status.disruptionsAllowed < 0) throw forbidden(name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) throw forbidden(name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (status.disruptionsAllowed === 0) throw refused(`The disruption budget ${name} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
  const disruptionsAllowed = status.disruptionsAllowed - 1;
  const conditions = disruptionsAllowed > 0 ? status.conditions : withCondition(status.conditions, allowedCondition(0), timestamp(now));
  pdb.status = { ...status, disruptionsAllowed, disruptedPods: { ...status.disruptedPods, [podName]: timestamp(now) }, ...(conditions && { conditions }) };
  return pdb;
}

function refusedStale(name: string): never {
  throw refused(`The disruption budget ${name} is still being processed by the server.`);
}

function forbidden(name: string, why: string): KedgeError {
  return new KedgeError('Forbidden', `poddisruptionbudgets.policy "${name}" is forbidden: ${why}`, { details: { name, group: 'policy', kind: 'poddisruptionbudgets' } });
}
