import type { CronJob, CronJobStatus, Job } from '../../../shared/batch-types.js';
import type { ObjectReference } from '../../../shared/service-types.js';
import type { CronJobAction } from './plan.js';

/** The active list and the finished Jobs a CronJob keeps (kube's syncCronJob and cleanupFinishedJobs). Pure. */

const conditionTrue = (job: Job, type: string): boolean => job.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
export const isFinished = (job: Job): boolean => conditionTrue(job, 'Complete') || conditionTrue(job, 'Failed');

export const jobRefOf = (job: Job): ObjectReference => ({
  kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion,
});

/** The status with finished and missing Jobs out of `active`, and lastSuccessfulTime from the newest Job that succeeded. */
export function reconcileActive(cj: CronJob, jobs: readonly Job[], missing: ReadonlySet<string>, actions: CronJobAction[]): CronJobStatus {
  const status: CronJobStatus = structuredClone(cj.status ?? {});
  let active = status.active ?? [];
  for (const job of jobs) {
    const listed = active.some((r) => r.uid === job.metadata.uid);
    if (listed && isFinished(job)) {
      active = active.filter((r) => r.uid !== job.metadata.uid);
      const condition = conditionTrue(job, 'Complete') ? 'Complete' : 'Failed';
      actions.push({ type: 'event', eventType: 'Normal', reason: 'SawCompletedJob', message: `Saw completed job: ${job.metadata.name}, condition: ${condition}` });
    } else if (!listed && !isFinished(job)) {
      actions.push({ type: 'event', eventType: 'Warning', reason: 'UnexpectedJob', message: `Saw a job that the controller did not create or forgot: ${job.metadata.name}` });
    }
    const done = conditionTrue(job, 'Complete') ? job.status?.completionTime : undefined;
    if (done && (!status.lastSuccessfulTime || Date.parse(done) > Date.parse(status.lastSuccessfulTime))) status.lastSuccessfulTime = done;
  }
  for (const ref of active.filter((r) => r.uid !== undefined && missing.has(r.uid))) {
    actions.push({ type: 'event', eventType: 'Warning', reason: 'MissingJob', message: `Active job went missing: ${ref.name}` });
  }
  active = active.filter((r) => r.uid === undefined || !missing.has(r.uid));
  if (active.length > 0) status.active = active;
  else delete status.active;
  return status;
}

/** Finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit, the oldest (by start time) first. */
export function historyActions(cj: CronJob, jobs: readonly Job[]): CronJobAction[] {
  const oldest = (list: Job[], limit: number | undefined): Job[] => {
    if (limit == null || list.length <= limit) return [];
    const start = (j: Job): number => (j.status?.startTime ? Date.parse(j.status.startTime) : 0);
    return [...list].sort((a, b) => start(a) - start(b)).slice(0, list.length - limit);
  };
  const succeeded = jobs.filter((j) => conditionTrue(j, 'Complete'));
  const failed = jobs.filter((j) => conditionTrue(j, 'Failed'));
  return [...oldest(succeeded, cj.spec.successfulJobsHistoryLimit), ...oldest(failed, cj.spec.failedJobsHistoryLimit)].map((job) => ({ type: 'deleteJob' as const, job }));
}
