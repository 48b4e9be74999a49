import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScheduler, type SchedulerHandle } from '../../cloud/scheduler/scheduler.js';
import { FakeClock, settle } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Node, Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const nodeBody = (name: string, ready = true): Node => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {},
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('scheduler', () => {
  let api: FakeApiClient;
  let clock: FakeClock;
  let scheduler: SchedulerHandle;
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
    scheduler = await startScheduler({ api, clock, logger: silentLogger, backoff: { minMs: 1_000, maxMs: 4_000 } });
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

  it('stops when closed', async () => {
    await scheduler.close();
    await api.create({ resource: 'nodes' }, nodeBody('a'));
    await createPod('p');
    await drain();
    expect(await nodeOf('p')).toBeUndefined();
  });
});
