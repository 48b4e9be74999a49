import type { Job } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';
import { findCondition } from './conditions.js';
import { hasTrackingFinalizer } from './pods.js';
import type { JobAction } from './plan.js';

/**
 * A finished (or deleting) Job: pods still holding the tracking finalizer let go, and with
 * ttlSecondsAfterFinished the Job is deleted that long after it finished (kube's TTL-after-finished
 * controller), or looked at again then. Pure.
 */
export function finishedJobActions(job: Job, owned: readonly Pod[], now: number, scale: number): JobAction[] {
  const held = owned.filter(hasTrackingFinalizer);
  const actions: JobAction[] = held.length > 0 ? [{ type: 'removeFinalizer', pods: held }] : [];
  const ttl = job.spec.ttlSecondsAfterFinished;
  if (ttl == null || job.metadata.deletionTimestamp) return actions;
  const finishedAt = job.status?.completionTime ?? findCondition(job.status?.conditions, 'Failed')?.lastTransitionTime;
  if (!finishedAt) return actions;
  const left = Date.parse(finishedAt) + (ttl * 1000) / scale - now;
  return [...actions, left <= 0 ? { type: 'deleteJob' } : { type: 'requeueAfter', ms: left }];
}
