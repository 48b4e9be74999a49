import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/**
 * The real kubectl against Jobs and CronJobs running on a simulated edge. The cluster runs on
 * the real clock (kubectl does anyway); nothing here sleeps: every wait is kubectl's own.
 */
describe.skipIf(!hasKubectl)('kubectl with batch/v1 on an edge', () => {
  let cluster: Cluster | undefined;
  let home: string;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(home, cluster!.cloud.kubeconfigPath)(...args);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kedge-jobs-'));
    cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: 1 });
  });
  afterAll(async () => {
    await cluster?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it('kubectl create job pi --image=busybox completes on the edge', async () => {
    expect(await kubectl('create', 'job', 'pi', '--image=busybox')).toMatchObject({ code: 0, stdout: 'job.batch/pi created\n' });
    const wait = await kubectl('wait', '--for=condition=complete', 'job/pi', '--timeout=30s');
    expect(wait).toMatchObject({ code: 0, stdout: 'job.batch/pi condition met\n' });
    const get = await kubectl('get', 'jobs');
    const [header, row] = get.stdout.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(row!.split(/\s{2,}/)).toEqual(['pi', 'Complete', '1/1', expect.stringMatching(/^\d+s$/), expect.stringMatching(/^\d+s$/)]);
    const pods = await kubectl('get', 'pods', '-l', 'job-name=pi', '-o', 'jsonpath={.items[*].status.phase} {.items[*].spec.nodeName}');
    expect(pods.stdout).toBe('Succeeded edge-1');
  });

  it('kubectl create cronjob, a Job from it, get jobs,cronjobs', async () => {
    const created = await kubectl('create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/1 * * * *');
    expect(created).toMatchObject({ code: 0, stdout: 'cronjob.batch/tick created\n' });
    expect(await kubectl('create', 'job', 'by-hand', '--from=cronjob/tick')).toMatchObject({ code: 0, stdout: 'job.batch/by-hand created\n' });
    expect((await kubectl('wait', '--for=condition=complete', 'job/by-hand', '--timeout=30s')).code).toBe(0);
    const owner = await kubectl('get', 'job', 'by-hand', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}');
    expect(owner.stdout).toBe('CronJob/tick manual');
    const get = await kubectl('get', 'jobs,cronjobs');
    expect(get.stderr).toBe('');
    const lines = get.stdout.trim().split('\n');
    const cjHeader = lines.find((l) => l.startsWith('NAME') && l.includes('SCHEDULE'))!;
    expect(cjHeader.split(/\s{2,}/)).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    const cjRow = lines.find((l) => l.startsWith('cronjob.batch/tick'))!;
    expect(cjRow.split(/\s{2,}/).slice(0, 4)).toEqual(['cronjob.batch/tick', '*/1 * * * *', '<none>', 'False']);
  });

  it('kubectl apply -f examples/job.yaml, then describe', async () => {
    const manifest = join(import.meta.dirname, '../../examples/job.yaml');
    expect((await kubectl('create', 'namespace', 'examples')).code).toBe(0);
    expect(await kubectl('apply', '-n', 'examples', '-f', manifest)).toMatchObject({ code: 0, stdout: 'job.batch/pi created\ncronjob.batch/hello created\n' });
    expect((await kubectl('wait', '-n', 'examples', '--for=condition=complete', 'job/pi', '--timeout=30s')).code).toBe(0);
    const described = await kubectl('describe', '-n', 'examples', 'job', 'pi');
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed/);
  });

  it('kubectl delete job takes its pods with it', async () => {
    expect(await kubectl('delete', 'job', 'pi')).toMatchObject({ code: 0, stdout: 'job.batch "pi" deleted\n' });
    const gone = await kubectl('wait', '--for=delete', 'pod', '-l', 'job-name=pi', '--timeout=30s');
    expect(gone.code).toBe(0);
    expect((await kubectl('get', 'pods', '-l', 'job-name=pi', '-o', 'name')).stdout).toBe('');
  });
});
