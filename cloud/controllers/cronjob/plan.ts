import { CRONJOB_SCHEDULED_TIMESTAMP, type CronJob, type CronJobStatus, type Job } from '../../../shared/batch-types.js';
import { parseCron } from '../../../shared/cron-schedule.js';
import { stableJson, timestamp } from '../../client/object-meta.js';
import { controllerRefTo } from '../controller-ref.js';
import { cronClock } from './cron-clock.js';
import { historyActions, isFinished, reconcileActive } from './history.js';
import { MANY_MISSED, scheduleTimes } from './schedule-times.js';

export type CronJobAction =
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string }
  | { type: 'deleteJob'; job: Job }
  /** Creates `job`, then writes `status` with it added to the active list and lastScheduleTime set. */
  | { type: 'createJob'; job: Job; status: CronJobStatus; scheduledAt: string }
  | { type: 'status'; status: CronJobStatus }
  | { type: 'requeueAfter'; ms: number };

export interface CronJobPlanInput {
  cj: CronJob;
  /** The Jobs this CronJob controls. */
  jobs: readonly Job[];
  /** Uids in status.active whose Job the API no longer has. */
  missing: ReadonlySet<string>;
  now: number;
  timeScale: number;
}

/** A little past the scheduled time, so the wake-up finds it due (kube adds 100 ms). */
const WAKE_SLACK_MS = 100;

/** One pass of the CronJob controller (syncCronJob), on the CronJob's cron clock. Pure. */
export function planCronJob(input: CronJobPlanInput): CronJobAction[] {
  const { cj, jobs, now, timeScale } = input;
  if (cj.metadata.deletionTimestamp) return [];
  const actions: CronJobAction[] = [];
  const status = reconcileActive(cj, jobs, input.missing, actions);
  actions.push(...historyActions(cj, jobs));
  const finish = (): CronJobAction[] => (stableJson(status) !== stableJson(cj.status ?? {}) ? [...actions, { type: 'status', status }] : actions);
  if (cj.spec.suspend === true) return finish();
  const clock = cronClock(cj, timeScale);
  const cronNow = clock.toCron(now);
  const times = scheduleTimes({ ...cj, status }, parseCron(cj.spec.schedule), cronNow, clock.toCron(Date.parse(cj.metadata.creationTimestamp ?? '') || 0));
  const wake = (): void => {
    if (times.next !== undefined) actions.push({ type: 'requeueAfter', ms: Math.max(0, clock.toReal(times.next) - now) + WAKE_SLACK_MS });
  };
  wake();
  const scheduled = times.mostRecent;
  if (scheduled === undefined) return finish();
  if (times.missed > MANY_MISSED) {
    actions.push({ type: 'event', eventType: 'Warning', reason: 'TooManyMissedTimes', message: `too many missed start times: ${times.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew` });
  }
  const deadline = cj.spec.startingDeadlineSeconds;
  if (deadline != null && scheduled + deadline * 1000 < cronNow) {
    actions.push({ type: 'event', eventType: 'Warning', reason: 'MissSchedule', message: `Missed scheduled time to start a job: ${rfc1123z(scheduled)}` });
    return finish();
  }
  const name = jobName(cj, scheduled);
  if ((status.active ?? []).some((r) => r.name === name) || status.lastScheduleTime === timestamp(scheduled)) return finish();
  const running = jobs.filter((j) => (status.active ?? []).some((r) => r.uid === j.metadata.uid) && !isFinished(j));
  if (cj.spec.concurrencyPolicy === 'Forbid' && (status.active ?? []).length > 0) {
    actions.push({ type: 'event', eventType: 'Normal', reason: 'JobAlreadyActive', message: 'Not starting job because prior execution is running and concurrency policy is Forbid' });
    return finish();
  }
  if (cj.spec.concurrencyPolicy === 'Replace') {
    for (const job of running) actions.push({ type: 'deleteJob', job });
    const gone = new Set(running.map((j) => j.metadata.uid));
    status.active = (status.active ?? []).filter((r) => !gone.has(r.uid));
    if (status.active.length === 0) delete status.active;
  }
  return [...actions, { type: 'createJob', job: jobFromTemplate(cj, scheduled), status, scheduledAt: timestamp(scheduled) }];
}

/** `<cronjob>-<minutes since the epoch>` of the scheduled time. */
export const jobName = (cj: CronJob, scheduled: number): string => `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;

/** getJobFromTemplate2: the template's metadata and spec, the scheduled-timestamp annotation, controlled by the CronJob. */
export function jobFromTemplate(cj: CronJob, scheduled: number): Job {
  const template = cj.spec.jobTemplate;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduled),
      namespace: cj.metadata.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [CRONJOB_SCHEDULED_TIMESTAMP]: timestamp(scheduled) },
      ownerReferences: [controllerRefTo(cj, 'batch/v1', 'CronJob')],
    },
    spec: structuredClone(template.spec),
  };
}

/** Go's time.RFC1123Z in UTC: "Mon, 02 Jan 2006 15:04:05 +0000". */
export function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

