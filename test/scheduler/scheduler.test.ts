import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScheduler, type SchedulerHandle } from '../../cloud/scheduler/scheduler.js';
import { FakeClock, settle } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Node, Pod } from '../../shared/types.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const nodeBody = (name: string, ready = true, allocatable: Record<string, string> = { cpu: '4', memory: '8Gi', pods: '110' }): Node => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {},
  status: { allocatable, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('scheduler', () => {
  let api: FakeApiClient;
  let clock: FakeClock;
  let scheduler: SchedulerHandle;
  let events: ReturnType<typeof memoryEventRecorder>;
  const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
  const createPod = (name: string, extra: Partial<Pod['spec']> = {}) =>
    api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name }, spec: { containers: [{ name: 'c' }], ...extra } });
  const nodeOf = async (name: string) => (await api.get<Pod>(podRef(name))).spec.nodeName;
  const drain = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await settle();
  };

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    events = memoryEventRecorder();
    scheduler = await startScheduler({ api, clock, logger: silentLogger, backoff: { minMs: 1_000, maxMs: 4_000 }, events });
  });
  afterEach(() => scheduler.close());

  it('binds pending pods to the least loaded ready node', async () => {
    await api.create({ resource: 'nodes' }, nodeBody('a'));
    await api.create({ resource: 'nodes' }, nodeBody('b'));
    await api.create({ resource: 'nodes' }, nodeBody('c', false));
    for (const name of ['p1', 'p2', 'p3', 'p4']) await createPod(name);
    await drain();
    expect(await Promise.all(['p1', 'p2', 'p3', 'p4'].map(nodeOf))).toEqual(['a', 'b', 'a', 'b']);
    expect(api.calls.filter((c) => c.startsWith('create pods/binding'))).toHaveLength(4);
    // One Normal Scheduled Event for each binding written, as kube-scheduler's.
    expect(events.events.map((e) => [e.about.metadata.name, e.type, e.reason, e.message])).toEqual([
      ['p1', 'Normal', 'Scheduled', 'Successfully assigned default/p1 to a'],
      ['p2', 'Normal', 'Scheduled', 'Successfully assigned default/p2 to b'],
      ['p3', 'Normal', 'Scheduled', 'Successfully assigned default/p3 to a'],
      ['p4', 'Normal', 'Scheduled', 'Successfully assigned default/p4 to b'],
    ]);
  });

  it('decides the next pod while earlier bindings are still being written, counting them', async () => {
    await api.create({ resource: 'nodes' }, nodeBody('a'));
    await api.create({ resource: 'nodes' }, nodeBody('b'));
    const release: (() => void)[] = [];
    const create = api.create.bind(api);
    api.create = (async (ref, body) => {
      if (ref.subresource === 'binding') await new Promise<void>((r) => release.push(r));
      return create(ref, body);
    }) as typeof api.create;
    for (const name of ['p1', 'p2', 'p3', 'p4']) await createPod(name);
    await drain();
    expect(release).toHaveLength(4); // all four bindings in flight at once
    for (const r of release) r();
    await drain();
    expect(await Promise.all(['p1', 'p2', 'p3', 'p4'].map(nodeOf))).toEqual(['a', 'b', 'a', 'b']);
  });

  it('leaves pods of other schedulers and already bound pods alone', async () => {
    await api.create({ resource: 'nodes' }, nodeBody('a'));
    await createPod('mine-elsewhere', { schedulerName: 'other' });
    await createPod('pinned', { nodeName: 'z' });
    await drain();
    expect(await nodeOf('mine-elsewhere')).toBeUndefined();
    expect(await nodeOf('pinned')).toBe('z');
    expect(api.calls.filter((c) => c.startsWith('create pods/binding'))).toHaveLength(0);
  });

  it('retries with backoff while no node fits, and schedules as soon as one becomes ready', async () => {
    await api.create({ resource: 'nodes' }, nodeBody('a', false));
    await createPod('p');
    await drain();
    expect(await nodeOf('p')).toBeUndefined();
    expect(scheduler.queued).toBe(1);
    await clock.advance(1_000);
    await drain();
    expect(await nodeOf('p')).toBeUndefined();
    const a = await api.get<Node>({ resource: 'nodes', name: 'a' });
    await api.replace({ resource: 'nodes', name: 'a', subresource: 'status' }, { ...a, status: nodeBody('a').status });
    await drain();
    expect(await nodeOf('p')).toBe('a');
  });

  it('counts the requests of assumed pods, and tells an unschedulable pod why: PodScheduled=False and a FailedScheduling Event', async () => {
    await api.create({ resource: 'nodes' }, nodeBody('a', true, { cpu: '1', memory: '1Gi', pods: '110' }));
    await api.create({ resource: 'nodes' }, nodeBody('b', false));
    const asking = { containers: [{ name: 'c', resources: { requests: { cpu: '600m' } } }] };
    await createPod('p1', asking);
    await createPod('p2', asking);
    await drain();
    expect(await nodeOf('p1')).toBe('a');
    expect(await nodeOf('p2')).toBeUndefined();
    const scheduled = async (name: string) => (await api.get<Pod>(podRef(name))).status?.conditions?.find((c) => c.type === 'PodScheduled');
    const firstMessage = '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were not ready.';
    expect(await scheduled('p2')).toMatchObject({ status: 'False', reason: 'Unschedulable', message: firstMessage });
    const statusPatches = () => api.calls.filter((c) => c === 'patch pods/status default/p2').length;
    expect(statusPatches()).toBe(1);
    const failures = () => events.events.filter((e) => e.reason !== 'Scheduled');
    expect(failures().map((e) => [e.about.metadata.name, e.type, e.reason, e.message])).toEqual([['p2', 'Warning', 'FailedScheduling', firstMessage]]);

    // Retries that come to the same answer write nothing.
    await clock.advance(1_000);
    await drain();
    await clock.advance(2_000);
    await drain();
    expect(statusPatches()).toBe(1);
    expect(failures()).toHaveLength(1);
    expect(await nodeOf('p2')).toBeUndefined();

    // A new answer is written again, keeping the time of the transition to False.
    const first = await scheduled('p2');
    await api.delete({ resource: 'nodes', name: 'b' });
    await drain();
    expect(await scheduled('p2')).toMatchObject({ status: 'False', message: '0/1 nodes are available: 1 Insufficient cpu.', lastTransitionTime: first?.lastTransitionTime });
    expect(statusPatches()).toBe(2);
    expect(failures().map((e) => e.message)).toEqual([firstMessage, '0/1 nodes are available: 1 Insufficient cpu.']);

    // Room made: the pod is retried at once, not after its backoff, and bound.
    await api.delete(podRef('p1'));
    await drain();
    expect(await nodeOf('p2')).toBe('a');
    expect(events.events.filter((e) => e.reason === 'Scheduled').map((e) => e.message)).toEqual(['Successfully assigned default/p1 to a', 'Successfully assigned default/p2 to a']);
  });

  it('starts each pick where the previous one stopped filtering (round robin over 150 nodes, 100 looked at per pick)', async () => {
    const names = Array.from({ length: 150 }, (_, i) => `n${String(i).padStart(3, '0')}`);
    for (const name of names) await api.create({ resource: 'nodes' }, nodeBody(name));
    // The first 100 nodes hold a pod each; the last 50 are empty.
    for (const name of names.slice(0, 100)) await createPod(`on-${name}`, { nodeName: name });
    await drain();
    await createPod('p1');
    await drain();
    await createPod('p2');
    await drain();
    // p1 looked at n000–n099 only (else it would take the empty n100); p2 started at n100.
    expect(await nodeOf('p1')).toBe('n000');
    expect(await nodeOf('p2')).toBe('n100');
  });

  it('stops when closed', async () => {
    await scheduler.close();
    await api.create({ resource: 'nodes' }, nodeBody('a'));
    await createPod('p');
    await drain();
    expect(await nodeOf('p')).toBeUndefined();
  });
});
