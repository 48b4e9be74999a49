import type { Job, JobCondition, JobStatus } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';
import { stableJson, timestamp } from '../../client/object-meta.js';
import { controllerRefOf } from '../controller-ref.js';
import {
  BACKOFF_MESSAGE, BACKOFF_REASON, COMPLETE_MESSAGE, COMPLETE_REASON, DEADLINE_MESSAGE, DEADLINE_REASON,
  ensureCondition, findCondition, finishedCondition, isTrue, newCondition,
} from './conditions.js';
import { finishedJobActions } from './finished.js';
import { manageJob } from './manage.js';
import { isActive, isReady, isTerminating, restartsOf } from './pods.js';
import { tally, totalFailed, totalSucceeded } from './tracking.js';

export type JobAction =
  | { type: 'create'; count: number }
  | { type: 'delete'; pods: Pod[] }
  | { type: 'status'; status: JobStatus }
  | { type: 'removeFinalizer'; pods: Pod[] }
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string }
  | { type: 'requeueAfter'; ms: number }
  /** ttlSecondsAfterFinished has passed: the Job goes (its pods with it). */
  | { type: 'deleteJob' };

export interface JobPlanInput {
  job: Job;
  /** Pods of the Job's namespace, as the informer shows them. */
  pods: readonly Pod[];
  /** False while pod creations or deletions asked for earlier have not been seen yet. */
  expectationsSatisfied: boolean;
  now: number;
  /** The timing profile's time scale: the Job's durations (deadline, back-off, TTL) are divided by it. */
  timeScale: number;
}

/** One pass of the Job controller (syncJob, NonIndexed). Pure. */
export function planJob(input: JobPlanInput): JobAction[] {
  const { job, now, timeScale } = input;
  const owned = input.pods.filter((p) => controllerRefOf(p)?.uid === job.metadata.uid);
  if (finishedCondition(job.status?.conditions) || job.metadata.deletionTimestamp) return finishedJobActions(job, owned, now, timeScale);
  const actions: JobAction[] = [];
  const status: JobStatus = structuredClone(job.status ?? {});
  const conditions = status.conditions ?? [];
  const suspended = job.spec.suspend === true;
  if (!status.startTime && !suspended) status.startTime = timestamp(now);
  let active = owned.filter(isActive);
  const counted = tally(job, owned, false);
  const failing = failureOf(job, status, totalFailed(counted), active, now, timeScale, actions);
  const deleting = failing ? active.length : 0;
  let created = 0;
  let finishing: JobCondition | undefined = failing;
  let next = conditions;
  if (failing) {
    if (active.length > 0) actions.push({ type: 'delete', pods: active });
    active = [];
    next = ensureCondition(next, failing).conditions;
  } else {
    let managed = false;
    if (input.expectationsSatisfied) {
      const m = manageJob(job, active, owned, totalSucceeded(counted), counted.finished, now, timeScale);
      actions.push(...m.actions);
      active = m.active;
      created = m.created;
      managed = true;
    }
    const succeeded = totalSucceeded(counted);
    const complete = active.length + created === 0 && (job.spec.completions == null ? succeeded > 0 : succeeded >= job.spec.completions);
    if (complete || isTrue(conditions, 'SuccessCriteriaMet')) {
      finishing = newCondition('SuccessCriteriaMet', 'True', COMPLETE_REASON, COMPLETE_MESSAGE, now);
      next = ensureCondition(next, finishing).conditions;
    } else if (managed) next = suspendConditions(next, suspended, now, status, actions);
  }
  const t = finishing ? tally(job, owned, true) : counted;
  const terminating = owned.filter(isTerminating).length;
  Object.assign(status, {
    active: active.length + created, ready: active.filter(isReady).length, terminating, succeeded: t.succeeded, failed: t.failed,
    uncountedTerminatedPods: compactUncounted(t.uncounted),
  });
  status.conditions = next;
  const done = finishing && t.uncounted.succeeded.length + t.uncounted.failed.length === 0 && terminating + deleting === 0 && input.expectationsSatisfied;
  if (done) enactFinished(status, finishing!, now, actions);
  if (!status.conditions.length) delete status.conditions;
  if (stableJson(status) !== stableJson(job.status ?? {})) actions.push({ type: 'status', status });
  if (t.release.length > 0) actions.push({ type: 'removeFinalizer', pods: t.release });
  if (done) actions.push(...finishedJobActions({ ...job, status }, [], now, timeScale));
  return actions;
}

/** FailureTarget when backoffLimit or activeDeadlineSeconds is exceeded (or was already found); else a wake-up at the deadline. */
function failureOf(job: Job, status: JobStatus, failed: number, active: readonly Pod[], now: number, scale: number, actions: JobAction[]): JobCondition | undefined {
  const target = findCondition(status.conditions, 'FailureTarget');
  if (target?.status === 'True') return target;
  const limit = job.spec.backoffLimit ?? 6;
  const restarts = job.spec.template.spec.restartPolicy === 'OnFailure' ? restartsOf(active) : 0;
  if (failed > limit || (limit === 0 ? restarts > 0 : restarts >= limit && restarts > 0)) {
    return newCondition('FailureTarget', 'True', BACKOFF_REASON, BACKOFF_MESSAGE, now);
  }
  const deadline = job.spec.activeDeadlineSeconds;
  if (deadline == null || job.spec.suspend === true || !status.startTime) return undefined;
  const left = Date.parse(status.startTime) + (deadline * 1000) / scale - now;
  if (left <= 0) return newCondition('FailureTarget', 'True', DEADLINE_REASON, DEADLINE_MESSAGE, now);
  actions.push({ type: 'requeueAfter', ms: left });
  return undefined;
}

/** Suspended True while suspended, False once resumed (and the deadline's clock starts again). */
function suspendConditions(conditions: JobCondition[], suspended: boolean, now: number, status: JobStatus, actions: JobAction[]): JobCondition[] {
  const cond = suspended
    ? newCondition('Suspended', 'True', 'JobSuspended', 'Job suspended', now)
    : newCondition('Suspended', 'False', 'JobResumed', 'Job resumed', now);
  const { conditions: next, changed } = ensureCondition(conditions, cond);
  if (!changed) return conditions;
  actions.push({ type: 'event', eventType: 'Normal', reason: suspended ? 'Suspended' : 'Resumed', message: suspended ? 'Job suspended' : 'Job resumed' });
  if (suspended) delete status.startTime;
  else status.startTime = timestamp(now);
  return next;
}

/** Complete (after SuccessCriteriaMet) or Failed (after FailureTarget), once every pod is counted and none is terminating. */
function enactFinished(status: JobStatus, interim: JobCondition, now: number, actions: JobAction[]): void {
  const failed = interim.type === 'FailureTarget';
  const final = newCondition(failed ? 'Failed' : 'Complete', 'True', interim.reason ?? '', interim.message ?? '', now);
  status.conditions = ensureCondition(status.conditions ?? [], final).conditions;
  if (failed) actions.push({ type: 'event', eventType: 'Warning', reason: interim.reason ?? 'Failed', message: interim.message ?? '' });
  else {
    status.completionTime = timestamp(now);
    actions.push({ type: 'event', eventType: 'Normal', reason: 'Completed', message: 'Job completed' });
  }
}

function compactUncounted(u: { succeeded: string[]; failed: string[] }): JobStatus['uncountedTerminatedPods'] {
  const out: NonNullable<JobStatus['uncountedTerminatedPods']> = {};
  if (u.succeeded.length) out.succeeded = [...u.succeeded].sort();
  if (u.failed.length) out.failed = [...u.failed].sort();
  return out;
}
