import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { silentLogger } from '../../shared/log.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node, Pod, PodStatus } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { MemoryEdge } from '../support/memory-edge.js';
import { memoryCloudLink } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

const FLOOD = 1000;
const refOf = (pod: Pod): ObjectRef => ({ kind: 'Pod', namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion! });
const terminated: PodStatus = { phase: 'Succeeded', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, image: 'i', imageID: 'i', state: { terminated: { exitCode: 0 } }, lastState: {} }] };

/**
 * Per-node state is bounded: what the hub keeps per pod uid and per node (status versions,
 * sessions, log requests, reported conditions, work in flight) forgets uids that have no pod
 * and nodes that are gone, however many uids and node names clients make up.
 */
describe("the hub's per-pod and per-node tables stay bounded", () => {
  let broker: MemoryBroker;
  let clock: FakeClock;
  let api: FakeApiClient;
  let hub: CloudHubHandle;
  const edges: MemoryEdge[] = [];

  const edge = async (node: string): Promise<MemoryEdge> => {
    const e = await MemoryEdge.connect(broker, clock, node, 'node-secret');
    edges.push(e);
    return e;
  };
  const hello = async (e: MemoryEdge): Promise<void> => {
    const h = await e.send({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
  };
  const acked = (e: MemoryEdge, id: string): Promise<unknown> => e.expect((m) => m.type === 'ack' && m.parentId === id, 1, `ack of ${id}`);
  const createPod = (name: string, nodeName: string): Promise<Pod> =>
    api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName } });

  beforeEach(async () => {
    clock = new FakeClock();
    broker = new MemoryBroker({ clock, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret') });
    api = new FakeApiClient();
    hub = await startCloudHub({ api, apiAsNode: () => api, ...memoryCloudLink(broker, clock), clock, timing: defaultTiming, logger: silentLogger, ledger: new MemoryAckLedger() });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub.close();
    broker.stop();
  });

  it(`${FLOOD} statuses of made-up pods leave nothing behind`, async () => {
    const live = await createPod('web', 'edge-1');
    const e = await edge('edge-1');
    await hello(e);
    for (let i = 0; i < FLOOD; i++) {
      const ref = { kind: 'Pod', namespace: 'default', name: `ghost-${i}`, uid: randomUUID() };
      void e.publish({ type: 'podStatus', ref, body: { phase: 'Running' }, statusVersion: 1e12 + i }).acked;
    }
    await runUntil(clock, () => e.received.filter((m) => m.type === 'ack').length === FLOOD, 'every status acked');
    const real = await e.send({ type: 'podStatus', ref: refOf(live), body: { phase: 'Running' }, statusVersion: 5 });
    await acked(e, real.id);
    expect(hub.tables()).toEqual({ pods: 1, sessions: 1, logRequests: 0, streams: 0, reportedConditions: 0, usages: 0, inFlight: 0, referenced: 0 });
  });

  it('a status that comes after its pod was deleted records nothing (churn)', async () => {
    const e = await edge('edge-1');
    await hello(e);
    for (let i = 0; i < 20; i++) {
      const pod = await createPod(`job-${i}`, 'edge-1');
      const [apply] = await e.expect((m) => m.type === 'apply' && m.ref.uid === pod.metadata.uid, 1, 'the pod sent');
      await e.send({ type: 'ack', parentId: apply!.id });
      await acked(e, (await e.send({ type: 'podStatus', ref: refOf(pod), body: { phase: 'Running' }, statusVersion: 10 * i + 1 })).id);
      await api.delete({ resource: 'pods', namespace: 'default', name: `job-${i}` });
      await e.expect((m) => m.type === 'delete' && m.ref.uid === pod.metadata.uid, 1, 'the tombstone: the hub saw the pod go');
      // The edge stops it and reports its last status after the cloud let go of it.
      await acked(e, (await e.send({ type: 'podStatus', ref: refOf(pod), body: terminated, statusVersion: 10 * i + 2 })).id);
    }
    expect(hub.tables().pods).toBe(0);
  });

  it('counts the ConfigMaps pods reference while they do, and forgets a node whose last pod went', async () => {
    const ns = { resource: 'configmaps', namespace: 'default' };
    for (let i = 0; i < 20; i++) {
      await api.create(ns, { metadata: { name: `cfg-${i}`, namespace: 'default' }, data: { k: 'v' } });
      const env = [{ name: 'K', valueFrom: { configMapKeyRef: { name: `cfg-${i}`, key: 'k' } } }];
      await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: `p-${i}`, namespace: 'default' }, spec: { containers: [{ name: 'c', env }], nodeName: `gone-${i}` } });
    }
    await runUntil(clock, () => hub.tables().referenced === 20, 'every ConfigMap referenced');
    expect(hub.tables().sessions).toBe(20);
    for (let i = 0; i < 20; i++) await api.delete({ resource: 'pods', namespace: 'default', name: `p-${i}` });
    await runUntil(clock, () => hub.tables().referenced === 0, 'no ConfigMap referenced');
    expect(hub.tables().sessions).toBe(0);
  });

  it('forgets the nodes that are gone: their sessions and their reported conditions', async () => {
    for (let i = 0; i < 30; i++) {
      const e = await edge(`made-up-${i}`);
      await hello(e);
      await e.send({ type: 'heartbeat' });
      await e.presence(false);
    }
    await runUntil(clock, () => hub.connectedNodes().length === 0, 'every made-up node offline');
    expect(hub.tables().sessions).toBe(0);

    const real = await edge('edge-9');
    await hello(real);
    const status = await real.send({ type: 'nodeStatus', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-9' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } } });
    await acked(real, status.id);
    expect(hub.tables()).toMatchObject({ sessions: 1, reportedConditions: 1 });
    await real.presence(false);
    await runUntil(clock, () => hub.connectedNodes().length === 0, 'edge-9 offline');
    expect(hub.tables()).toMatchObject({ sessions: 1, reportedConditions: 1 }); // its Node is still there
    await api.delete({ resource: 'nodes', name: 'edge-9' });
    await runUntil(clock, () => hub.tables().sessions === 0, 'the session of a deleted node forgotten');
    expect(hub.tables().reportedConditions).toBe(0);
    expect((await api.list<Node>({ resource: 'nodes' })).items).toEqual([]);
  });
});
