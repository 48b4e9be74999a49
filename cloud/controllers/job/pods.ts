import { JOB_TRACKING_FINALIZER, type Job } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';

/** What the Job controller reads from its pods (kube's job_controller.go helpers). Pure. */

export const hasTrackingFinalizer = (pod: Pod): boolean => pod.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER) ?? false;

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Running or pending, not being deleted: counts as active. */
export const isActive = (pod: Pod): boolean => !isTerminal(pod) && !pod.metadata.deletionTimestamp;

/** Being deleted and not finished yet: status.terminating. */
export const isTerminating = (pod: Pod): boolean => !isTerminal(pod) && Boolean(pod.metadata.deletionTimestamp);

export const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** podReplacementPolicy Failed: a replacement waits until the old pod has really failed. */
export const onlyReplaceFailedPods = (job: Job): boolean => job.spec.podReplacementPolicy === 'Failed';

/**
 * isPodFailed: Failed, or (unless only failed pods are replaced) deleted before it succeeded —
 * an orphan that will never reach Failed, such as a pod deleted on an unreachable node.
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return Boolean(pod.metadata.deletionTimestamp) && pod.status?.phase !== 'Succeeded';
}

/** When a pod finished: its containers' last finishedAt, else its deletion time, else its creation. */
export function finishedAt(pod: Pod): number {
  let latest: number | undefined;
  for (const c of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
    const at = c.state?.terminated?.finishedAt;
    if (at) latest = Math.max(latest ?? 0, Date.parse(at));
  }
  const fallback = pod.metadata.deletionTimestamp ?? pod.metadata.creationTimestamp;
  return latest ?? (fallback ? Date.parse(fallback) : 0);
}

/** Container restarts of active pods: under restartPolicy OnFailure these are the Job's failures. */
export function restartsOf(pods: readonly Pod[]): number {
  let n = 0;
  for (const pod of pods) {
    for (const c of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) n += c.restartCount ?? 0;
  }
  return n;
}

/** Deletion order of active pods (activePodsForRemoval): unscheduled, then not ready, then the newest first. */
export function podsToRemove(pods: readonly Pod[], count: number): Pod[] {
  const rank = (p: Pod): number[] => [p.spec.nodeName ? 1 : 0, p.status?.phase === 'Pending' ? 0 : 1, isReady(p) ? 1 : 0, -Date.parse(p.metadata.creationTimestamp ?? '0')];
  const sorted = [...pods].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return 0;
  });
  return sorted.slice(0, Math.max(0, count));
}
