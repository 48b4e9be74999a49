import { afterEach, describe, expect, it } from 'vitest';
import type { CronJob, Job } from '../../shared/batch-types.js';
import { FakeClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

/** A CronJob creating Jobs on its schedule in fake time; their pods run on an edge; the history is trimmed. */

const jobs = { resource: 'jobs', group: 'batch', namespace: 'default' };
const cronJobs = { resource: 'cronjobs', group: 'batch', namespace: 'default' };
const MINUTE = 60_000;

const cronJob: CronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'tick' },
  spec: {
    schedule: '*/1 * * * *',
    jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'tick', image: 'busybox', command: ['date'] }] } } } },
  },
};

const complete = (j: Job): boolean => j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;

describe('a CronJob on an edge', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('creates a Job every minute, each completes, and only the last 3 are kept', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const created = await c.api.create<CronJob>(cronJobs, cronJob);
    expect(created.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const seen = new Set<string>();
    await runUntil(c.clock, async () => {
      for (const j of (await c.api.list<Job>(jobs)).items) seen.add(j.metadata.name!);
      return seen.size >= 5;
    }, 'five scheduled Jobs', { stepMs: 1_000, budgetMs: 7 * MINUTE });
    const minutes = [...seen].map((n) => Number(n.slice('tick-'.length))).sort((a, b) => a - b);
    expect(minutes.slice(1).map((m, i) => m - minutes[i]!)).toEqual([1, 1, 1, 1]);

    const kept = await runUntil(c.clock, async () => {
      const items = (await c.api.list<Job>(jobs)).items.filter(complete);
      return items.length === 3 && (await c.api.list<Job>(jobs)).items.length <= 4 && items;
    }, 'three completed Jobs kept', { stepMs: 1_000, budgetMs: MINUTE });
    const newest = Math.max(...kept.map((j) => Number(j.metadata.name!.slice(5))));
    const cj = await c.api.get<CronJob>({ ...cronJobs, name: 'tick' });
    expect(Date.parse(cj.status!.lastScheduleTime!) / MINUTE).toBeGreaterThanOrEqual(newest);
    expect(cj.status?.lastSuccessfulTime).toBeDefined();
    expect(kept[0]!.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toMatch(/:00Z$/);
  });
});
