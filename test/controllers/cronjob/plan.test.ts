import { describe, expect, it } from 'vitest';
import { planCronJob, type CronJobAction } from '../../../cloud/controllers/cronjob/index.js';
import type { CronJob, Job } from '../../../shared/batch-types.js';

const utc = (text: string): number => Date.parse(`${text}Z`);

function cronJob(spec: Partial<CronJob['spec']> = {}, status: CronJob['status'] = {}): CronJob {
  return {
    metadata: { name: 'tick', namespace: 'default', uid: 'cj', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      schedule: '*/1 * * * *', concurrencyPolicy: 'Allow', successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      ...spec,
    },
    status,
  };
}

function child(name: string, state: 'running' | 'Complete' | 'Failed', startS = 0): Job {
  const done = state === 'running' ? {} : { conditions: [{ type: state, status: 'True' as const }], ...(state === 'Complete' ? { completionTime: new Date(utc('2026-01-01T00:00') + startS * 1000 + 5_000).toISOString().replace(/\.\d+Z/, 'Z') } : {}) };
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'cj', controller: true }] },
    spec: { template: { spec: { containers: [] } } },
    status: { startTime: new Date(utc('2026-01-01T00:00') + startS * 1000).toISOString().replace(/\.\d+Z/, 'Z'), ...done },
  };
}
const ref = (name: string) => ({ kind: 'Job', namespace: 'default', name, uid: `uid-${name}`, apiVersion: 'batch/v1' });

const plan = (cj: CronJob, jobs: Job[], now: string, scale = 1, missing: string[] = []): CronJobAction[] =>
  planCronJob({ cj, jobs, missing: new Set(missing), now: utc(now), timeScale: scale });
const of = <T extends CronJobAction['type']>(actions: CronJobAction[], type: T): Extract<CronJobAction, { type: T }>[] =>
  actions.filter((a): a is Extract<CronJobAction, { type: T }> => a.type === type);

describe('planCronJob', () => {
  it('creates the Job of the due minute, named <cronjob>-<unix minutes>, with the scheduled-timestamp annotation', () => {
    const [create] = of(plan(cronJob(), [], '2026-01-01T00:01:05'), 'createJob');
    expect(create?.job.metadata).toMatchObject({
      name: `tick-${utc('2026-01-01T00:01') / 60_000}`,
      labels: { app: 'tick' },
      annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T00:01:00Z' },
      ownerReferences: [{ kind: 'CronJob', uid: 'cj', controller: true }],
    });
    expect(create?.scheduledAt).toBe('2026-01-01T00:01:00Z');
  });

  it('wakes up at the next scheduled time', () => {
    expect(of(plan(cronJob(), [], '2026-01-01T00:00:20'), 'requeueAfter')).toEqual([{ type: 'requeueAfter', ms: 40_100 }]);
  });

  it('runs only the latest of the missed times, and warns past 100 missed', () => {
    const actions = plan(cronJob({}, { lastScheduleTime: '2026-01-01T00:00:00Z' }), [], '2026-01-01T03:00:10');
    expect(of(actions, 'createJob').map((a) => a.scheduledAt)).toEqual(['2026-01-01T03:00:00Z']);
    expect(of(actions, 'event').map((e) => e.reason)).toEqual(['TooManyMissedTimes']);
  });

  it('past startingDeadlineSeconds: no Job', () => {
    const cj = cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 10 });
    expect(of(plan(cj, [], '2026-01-01T01:00:30'), 'createJob')).toEqual([]);
    const cj2 = cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 3600 }, { lastScheduleTime: '2026-01-01T00:00:00Z' });
    // Due 01:00, looked at 01:20 with an hour's deadline: still on time.
    expect(of(plan(cj2, [], '2026-01-01T01:20:00'), 'createJob')).toHaveLength(1);
  });

  it.each([
    { policy: 'Allow' as const, creates: 1, deletes: 0 },
    { policy: 'Forbid' as const, creates: 0, deletes: 0 },
    { policy: 'Replace' as const, creates: 1, deletes: 1 },
  ])('concurrencyPolicy $policy with a Job still running', ({ policy, creates, deletes }) => {
    const cj = cronJob({ concurrencyPolicy: policy }, { lastScheduleTime: '2026-01-01T00:01:00Z', active: [ref('old')] });
    const actions = plan(cj, [child('old', 'running', 60)], '2026-01-01T00:02:05');
    expect(of(actions, 'createJob')).toHaveLength(creates);
    expect(of(actions, 'deleteJob')).toHaveLength(deletes);
  });

  it('suspended: no Job', () => {
    expect(of(plan(cronJob({ suspend: true }), [], '2026-01-01T00:05:00'), 'createJob')).toEqual([]);
  });

  it('takes finished Jobs out of active, keeps lastSuccessfulTime, and keeps 3 succeeded and 1 failed', () => {
    const jobs = [child('s1', 'Complete', 10), child('s2', 'Complete', 20), child('s3', 'Complete', 30), child('s4', 'Complete', 40), child('f1', 'Failed', 15), child('f2', 'Failed', 25)];
    const cj = cronJob({}, { lastScheduleTime: '2026-01-01T00:00:40Z', active: [ref('s4')] });
    const actions = plan(cj, jobs, '2026-01-01T00:00:50');
    expect(of(actions, 'deleteJob').map((a) => a.job.metadata.name)).toEqual(['s1', 'f1']);
    const status = of(actions, 'status')[0]?.status;
    expect(status?.active).toBeUndefined();
    expect(status?.lastSuccessfulTime).toBe('2026-01-01T00:00:45Z');
  });

  it('drops an active Job the API no longer has (MissingJob)', () => {
    const cj = cronJob({}, { lastScheduleTime: '2026-01-01T00:00:00Z', active: [ref('gone')] });
    const actions = plan(cj, [], '2026-01-01T00:00:30', 1, ['uid-gone']);
    expect(of(actions, 'event').map((e) => e.reason)).toEqual(['MissingJob']);
    expect(of(actions, 'status')[0]?.status.active).toBeUndefined();
  });

  it('with --time-scale 60 a minute of schedule is a second of real time, from the creation', () => {
    const [create] = of(plan(cronJob(), [], '2026-01-01T00:00:01.100', 60), 'createJob');
    expect(create?.scheduledAt).toBe('2026-01-01T00:01:00Z');
    expect(of(plan(cronJob(), [], '2026-01-01T00:00:00.500', 60), 'requeueAfter')).toEqual([{ type: 'requeueAfter', ms: 600 }]);
  });
});
