import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '../../shared/batch-types.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

/** Jobs run on simulated edges: they complete, and a pod that finishes while its edge is cut off counts once. */

const jobs = { resource: 'jobs', group: 'batch', namespace: 'default' };
const pods = { resource: 'pods', namespace: 'default' };

function job(name: string, command: string[], extra: Partial<Job['spec']> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      template: {
        // Autonomous pods (KubeEdge's label) are never evicted from a disconnected node.
        metadata: { labels: { 'app-offline.kubeedge.io': 'autonomy' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command }] },
      },
      ...extra,
    },
  };
}

const condition = (j: Job, type: string): boolean => j.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

describe('Jobs on edges', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('runs a Job to completion: SuccessCriteriaMet, then Complete once its pod is counted', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(jobs, job('pi', ['sh', '-c', 'sleep 3; echo 3.14159']));
    const done = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'pi' });
      return condition(j, 'Complete') && j;
    }, 'job pi Complete');
    expect(done.status).toMatchObject({ succeeded: 1, failed: 0, active: 0, uncountedTerminatedPods: {} });
    expect(condition(done, 'SuccessCriteriaMet')).toBe(true);
    expect(Date.parse(done.status!.completionTime!) - Date.parse(done.status!.startTime!)).toBeGreaterThanOrEqual(3_000);
    const [pod] = (await c.api.list<Pod>(pods)).items;
    expect(pod!.status?.phase).toBe('Succeeded');
    expect(pod!.metadata.finalizers ?? []).toEqual([]);
    expect(pod!.metadata.labels).toMatchObject({ 'batch.kubernetes.io/job-name': 'pi', 'job-name': 'pi', 'controller-uid': done.metadata.uid });
  });

  it('counts a pod that succeeded while its edge was cut off exactly once, after heal', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    await c.api.create(jobs, job('offline', ['sleep', '60']));
    await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.some((p) => p.status?.phase === 'Running'), 'the pod Running');
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the cloud to notice', { budgetMs: 5_000 });
    await pass(c.clock, 120_000, 1_000);
    // Finished on the edge, unknown to the cloud.
    const [onEdge] = await c.edge('edge-1').runtime.listContainers();
    expect(onEdge?.state).toBe('exited');
    expect((await c.api.get<Job>({ ...jobs, name: 'offline' })).status?.succeeded ?? 0).toBe(0);

    c.heal('edge-1');
    const done = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'offline' });
      return condition(j, 'Complete') && j;
    }, 'job Complete after heal');
    expect(done.status).toMatchObject({ succeeded: 1, failed: 0, active: 0 });
    // The edge re-sends its statuses after further reconnects: still counted once.
    for (let i = 0; i < 2; i++) {
      c.cut('edge-1');
      await pass(c.clock, 5_000, 500);
      c.heal('edge-1');
      await pass(c.clock, 5_000, 500);
    }
    const after = await c.api.get<Job>({ ...jobs, name: 'offline' });
    expect(after.status).toMatchObject({ succeeded: 1, failed: 0 });
    expect((await c.api.list<Pod>(pods)).items).toHaveLength(1);
  });

  it('keeps a pod deleted while its edge is away until its end is known (podReplacementPolicy: Failed)', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    await c.api.create(jobs, job('held', ['sleep', '30'], { podReplacementPolicy: 'Failed' }));
    const running = await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.find((p) => p.status?.phase === 'Running'), 'the pod Running');
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the cloud to notice', { budgetMs: 5_000 });
    await c.api.delete({ ...pods, name: running.metadata.name });
    await pass(c.clock, 60_000, 1_000);
    const held = await c.api.get<Pod>({ ...pods, name: running.metadata.name });
    expect(held.metadata.finalizers).toContain('batch.kubernetes.io/job-tracking');
    expect((await c.api.list<Pod>(pods)).items).toHaveLength(1); // no replacement while its end is unknown

    c.heal('edge-1');
    const done = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'held' });
      return condition(j, 'Complete') && j;
    }, 'job Complete after heal');
    expect(done.status).toMatchObject({ succeeded: 1, failed: 0 });
    await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.length === 0, 'the deleted pod gone once counted');
  });

  it('a pod evicted from an unreachable edge counts as failed once and is replaced elsewhere (TerminatingOrFailed)', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    const evictable = job('evicted', ['sleep', '30']);
    evictable.spec.template.metadata = {};
    evictable.spec.template.spec.tolerations = [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }];
    await c.api.create(jobs, evictable);
    const first = await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.find((p) => p.status?.phase === 'Running'), 'the pod Running');
    const node = first.spec.nodeName!;
    c.cut(node);
    const met = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'evicted' });
      return condition(j, 'SuccessCriteriaMet') && j;
    }, 'the replacement to succeed', { stepMs: 500, budgetMs: 5 * 60_000 });
    // As in kube 1.32, Complete waits until no pod is terminating: the evicted one is, until its edge is back.
    expect(met.status).toMatchObject({ succeeded: 1, failed: 1, terminating: 1 });
    expect(condition(met, 'Complete')).toBe(false);
    const replacement = (await c.api.list<Pod>(pods)).items.find((p) => p.metadata.uid !== first.metadata.uid);
    expect(replacement?.spec.nodeName).not.toBe(node);

    // The evicted pod succeeded on its edge meanwhile; after heal the edge says so, and nothing is counted again.
    c.heal(node);
    const done = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'evicted' });
      return condition(j, 'Complete') && j;
    }, 'the Job Complete after heal');
    expect(done.status).toMatchObject({ succeeded: 1, failed: 1, terminating: 0 });
    expect((await c.api.list<Pod>(pods)).items.map((p) => p.metadata.uid)).toEqual([replacement!.metadata.uid]);
  });

  it('a failing Job retries after the back-off, then Fails past backoffLimit; a finished Job goes after its TTL', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await c.api.create(jobs, job('flaky', ['sh', '-c', 'sleep 1; exit 3'], { backoffLimit: 1, ttlSecondsAfterFinished: 30 }));
    const failed = await runUntil(c.clock, async () => {
      const j = await c.api.get<Job>({ ...jobs, name: 'flaky' });
      return condition(j, 'Failed') && j;
    }, 'the Job Failed', { stepMs: 200 });
    expect(failed.status).toMatchObject({ failed: 2, succeeded: 0 });
    expect(failed.status?.conditions?.find((x) => x.type === 'Failed')).toMatchObject({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    const [a, b] = (await c.api.list<Pod>(pods)).items.sort((x, y) => Date.parse(x.metadata.creationTimestamp!) - Date.parse(y.metadata.creationTimestamp!));
    const firstEnd = Date.parse(a!.status!.containerStatuses![0]!.state.terminated!.finishedAt!);
    // The second pod waited out the 10 s back-off after the first failure.
    expect(Date.parse(b!.metadata.creationTimestamp!) - firstEnd).toBeGreaterThanOrEqual(9_000);
    expect(b!.status?.containerStatuses?.[0]?.state.terminated?.exitCode).toBe(3);

    const failedAt = Date.parse(failed.status!.conditions!.find((x) => x.type === 'Failed')!.lastTransitionTime!);
    await runUntil(c.clock, async () => (await c.api.list<Job>(jobs)).items.length === 0 && (await c.api.list<Pod>(pods)).items.length === 0, 'the Job and its pods gone after the TTL');
    expect(c.clock.now() - failedAt).toBeGreaterThanOrEqual(30_000);
  });
});
