import { describe, expect, it } from 'vitest';
import type { CronJob, Job } from '../../shared/batch-types.js';
import { apiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const jobs = '/apis/batch/v1/namespaces/default/jobs';
const cronJobs = '/apis/batch/v1/namespaces/default/cronjobs';

const job = (name: string, podSpec: Record<string, unknown> = { restartPolicy: 'Never' }): Job => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
  spec: { template: { spec: { containers: [{ name: 'pi', image: 'busybox' }], ...podSpec } } },
});
const cronJob = (name: string, schedule: string, extra: Record<string, unknown> = {}): CronJob => ({
  apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name },
  spec: { schedule, jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } }, ...extra },
});
const causes = (body: unknown): { field?: string; message: string }[] => ((body as Status).details?.causes ?? []) as { field?: string; message: string }[];

describe('batch/v1 in the apiserver', () => {
  it('serves jobs and cronjobs (cj) in discovery, both in category all, with status', async () => {
    const f = await apiFixture();
    const list = await f.json<{ resources: Record<string, unknown>[] }>('GET', '/apis/batch/v1');
    const byName = new Map(list.body.resources.map((r) => [r.name, r]));
    expect([...byName.keys()]).toEqual(['jobs', 'jobs/status', 'cronjobs', 'cronjobs/status']);
    expect(byName.get('jobs')).toMatchObject({ kind: 'Job', namespaced: true, categories: ['all'] });
    expect(byName.get('cronjobs')).toMatchObject({ kind: 'CronJob', shortNames: ['cj'], categories: ['all'] });
  });

  it('defaults a Job as kube 1.32: counts, backoffLimit 6, the generated selector and labels', async () => {
    const f = await apiFixture();
    const res = await f.json<Job>('POST', jobs, { body: job('pi') });
    expect(res.status).toBe(201);
    const { uid } = res.body.metadata;
    const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' };
    expect(res.body.spec).toMatchObject({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels } },
    });
    expect(res.body.spec.manualSelector).toBeUndefined();
    expect(res.body.metadata.labels).toEqual(labels);
    const parallel = await f.json<Job>('POST', jobs, { body: { ...job('p'), spec: { ...job('p').spec, parallelism: 3 } } });
    expect(parallel.body.spec.completions).toBeUndefined();
  });

  it('refuses a Job whose pods would restart Always, with kube\'s wording', async () => {
    const f = await apiFixture();
    const res = await f.json<Status>('POST', jobs, { body: job('bad', {}) });
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([{ reason: 'FieldValueNotSupported', field: 'spec.template.spec.restartPolicy', message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' }]);
  });

  it('keeps a Job\'s selector and template immutable', async () => {
    const f = await apiFixture();
    const created = (await f.json<Job>('POST', jobs, { body: job('pi') })).body;
    const changed = structuredClone(created);
    changed.spec.template.spec.containers[0]!.image = 'alpine';
    const res = await f.json<Status>('PUT', `${jobs}/pi`, { body: changed });
    expect(res.status).toBe(422);
    expect(causes(res.body).map((c) => [c.field, c.message.endsWith('field is immutable')])).toEqual([['spec.template', true]]);
  });

  it.each([
    ['*/1 * * * *', undefined],
    ['@hourly', undefined],
    ['@every 5m', undefined],
    ['0 0 * * mon-fri', undefined],
    ['* * *', 'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'],
    ['TZ=Europe/Paris 0 * * * *', 'Invalid value: "TZ=Europe/Paris 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
    ['CRON_TZ=UTC 0 * * * *', 'Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
  ])('CronJob schedule %j', async (schedule, message) => {
    const f = await apiFixture();
    const res = await f.json<Status>('POST', cronJobs, { body: cronJob('c', schedule) });
    if (message === undefined) return expect(res.status).toBe(201);
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.schedule', message }]);
  });

  it('defaults a CronJob and refuses an unknown concurrencyPolicy', async () => {
    const f = await apiFixture();
    const res = await f.json<CronJob>('POST', cronJobs, { body: cronJob('c', '*/5 * * * *') });
    expect(res.body.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const bad = await f.json<Status>('POST', cronJobs, { body: cronJob('d', '*/5 * * * *', { concurrencyPolicy: 'Sometimes' }) });
    expect(causes(bad.body).map((c) => c.message)).toEqual(['Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']);
  });

  it('prints jobs and cronjobs with kube\'s columns', async () => {
    const f = await apiFixture();
    await f.json('POST', jobs, { body: job('pi') });
    await f.json('POST', cronJobs, { body: cronJob('c', '*/5 * * * *') });
    const jt = (await f.json<Table>('GET', jobs, { accept: tableAccept })).body;
    expect(jt.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    expect(jt.rows[0]!.cells.slice(0, 4)).toEqual(['pi', 'Running', '0/1', '']);
    const ct = (await f.json<Table>('GET', cronJobs, { accept: tableAccept })).body;
    expect(ct.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    expect(ct.rows[0]!.cells.slice(0, 6)).toEqual(['c', '*/5 * * * *', '<none>', 'False', 0, '<none>']);
  });
});
