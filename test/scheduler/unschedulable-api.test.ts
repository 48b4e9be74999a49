import { afterEach, describe, expect, it } from 'vitest';
import { apiEventRecorder, type KubeEvent } from '../../cloud/controllers/events.js';
import { startScheduler, type SchedulerHandle } from '../../cloud/scheduler/scheduler.js';
import { silentLogger } from '../../shared/log.js';
import type { Node, Pod } from '../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, node } from '../support/api-fixture.js';
import { runUntil } from '../support/settle.js';

describe('an unschedulable pod, against the real apiserver', () => {
  let scheduler: SchedulerHandle | undefined;
  afterEach(async () => {
    await scheduler?.close();
    scheduler = undefined;
  });

  it('is told why through a merge patch of pods/status, and a FailedScheduling Event is written', async () => {
    const { api, clock } = await apiFixture();
    const client = api.loopback(ADMIN_TOKEN);
    for (const name of ['e1', 'e2']) {
      const body: Node = { ...node(name), status: { ...node(name).status, allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } };
      await client.create({ resource: 'nodes' }, body);
    }
    const events = apiEventRecorder(client, clock, 'default-scheduler', silentLogger);
    scheduler = await startScheduler({ api: client, clock, logger: silentLogger, events });
    const ref = { resource: 'pods', namespace: 'default', name: 'big' };
    const big: Pod = { metadata: { name: 'big' }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0', resources: { requests: { cpu: '5' } } }] } };
    await client.create(ref, big);

    const message = '0/2 nodes are available: 2 Insufficient cpu.';
    const condition = await runUntil(clock, async () => (await client.get<Pod>(ref)).status?.conditions?.find((c) => c.type === 'PodScheduled'), 'PodScheduled set');
    expect(condition).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
    expect((await client.get<Pod>(ref)).spec.nodeName).toBeUndefined();
    const recorded = await runUntil(clock, async () => (await client.list<KubeEvent>({ resource: 'events', namespace: 'default' })).items.find((e) => e.reason === 'FailedScheduling'), 'FailedScheduling event');
    expect(recorded).toMatchObject({ type: 'Warning', message, involvedObject: { kind: 'Pod', name: 'big' } });
  });
});
