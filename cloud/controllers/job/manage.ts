import type { Job } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';
import { backoffRemainingMs } from './backoff.js';
import type { JobAction } from './plan.js';
import { isTerminating, onlyReplaceFailedPods, podsToRemove } from './pods.js';

/** Most pods created or deleted in one pass (kube's MaxPodCreateDeletePerSync). */
export const MAX_PODS_PER_PASS = 500;

/**
 * manageJob (NonIndexed): as many active pods as parallelism allows and completions still need;
 * a suspended Job has none. New pods wait out the failure back-off. Pure.
 */
export function manageJob(
  job: Job, active: Pod[], owned: readonly Pod[], succeeded: number, finished: { pod: Pod; failed: boolean }[], now: number, scale: number,
): { actions: JobAction[]; active: Pod[]; created: number } {
  if (job.spec.suspend === true) return { actions: active.length > 0 ? [{ type: 'delete', pods: active }] : [], active: [], created: 0 };
  const parallelism = job.spec.parallelism ?? 1;
  const completions = job.spec.completions;
  const want = completions == null ? (succeeded > 0 ? active.length : parallelism) : Math.max(0, Math.min(completions - succeeded, parallelism));
  if (active.length > want) {
    const gone = podsToRemove(active, Math.min(active.length - want, MAX_PODS_PER_PASS));
    return { actions: [{ type: 'delete', pods: gone }], active: active.filter((p) => !gone.includes(p)), created: 0 };
  }
  const terminating = onlyReplaceFailedPods(job) ? owned.filter(isTerminating).length : 0;
  const diff = want - terminating - active.length;
  if (diff <= 0) return { actions: [], active, created: 0 };
  const wait = backoffRemainingMs(finished, now, scale);
  if (wait > 0) return { actions: [{ type: 'requeueAfter', ms: wait }], active, created: 0 };
  const count = Math.min(diff, MAX_PODS_PER_PASS);
  return { actions: [{ type: 'create', count }], active, created: count };
}
