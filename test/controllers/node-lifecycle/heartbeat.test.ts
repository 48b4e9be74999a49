import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { createNodeLifecycleController, leaseHeartbeat, readyConditionHeartbeat } from '../../../cloud/controllers/node-lifecycle/index.js';
import { FakeClock, settle } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { KubeObject, Node } from '../../../shared/types.js';
import { FakeApiClient } from '../../support/fake-api-client.js';
import { readyCondition, S } from './builders.js';
import { withInformers } from '../../support/controller-context.js';

/** A Lease renewal keeps a node alive too: by default (as kube's node lifecycle controller), and with the sources named. */
describe.each([
  ['the default heartbeats', () => createNodeLifecycleController()],
  ['the sources named', () => createNodeLifecycleController({ heartbeats: [readyConditionHeartbeat, leaseHeartbeat()] })],
])('node lifecycle with %s', (_name, controllerOf) => {
  let api: FakeApiClient;
  let clock: FakeClock;
  let controller: RunningController;
  const leaseRef = { resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'edge-1' };
  const drain = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await settle();
  };
  const ready = async (): Promise<string | undefined> =>
    (await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const renew = async (): Promise<void> => {
    const lease = await api.get<KubeObject & { spec: { renewTime: string } }>(leaseRef);
    await api.replace(leaseRef, { ...lease, spec: { renewTime: new Date(clock.now()).toISOString() } });
  };

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    await api.create({ resource: 'nodes' }, { metadata: { name: 'edge-1' }, spec: {}, status: { conditions: [readyCondition('True', clock.now())] } });
    await api.create(leaseRef, { metadata: { name: 'edge-1', namespace: 'kube-node-lease' }, spec: { renewTime: new Date(clock.now()).toISOString() } });
    const controllerDef = controllerOf();
    controller = await controllerDef.start(withInformers({ api, clock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() }));
  });
  afterEach(() => controller.close());

  it('counts lease renewals as heartbeats, and marks the node Unknown once they stop', async () => {
    for (let i = 0; i < 10; i++) {
      await clock.advance(10 * S);
      await renew();
      await drain();
    }
    expect(await ready()).toBe('True'); // 100 s without a status heartbeat, but the lease was renewed
    // The last renewal (at 100 s) is observed by the 105 s pass: silence counts from there.
    await clock.advance(45 * S);
    await drain();
    expect(await ready()).toBe('True');
    await clock.advance(5 * S);
    await drain();
    expect(await ready()).toBe('Unknown');
  });
});
