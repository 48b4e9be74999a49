import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { encode } from '../../shared/protocol/codec.js';
import { memoryLogger } from '../../shared/log.js';
import type { DownMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass, runUntil } from '../support/settle.js';

const timing = { ...defaultTiming, resendMinMs: 2_000, resendMaxMs: 16_000 };
const isType = (type: DownMessage['type']) => (m: DownMessage) => m.type === type;

describe('cloud hub over the in-memory broker, on fake time', () => {
  let sync: MemorySync;
  let api: FakeApiClient;
  let clock: FakeClock;
  let ledger: MemoryAckLedger;
  let hub: CloudHubHandle;
  let logs: ReturnType<typeof memoryLogger>;
  const edges: NodeDouble[] = [];

  const edge = async (node = 'edge-1', epoch?: string): Promise<NodeDouble> => {
    const e = await NodeDouble.connect(sync, node, epoch);
    edges.push(e);
    return e;
  };
  const createPod = (name: string, nodeName?: string): Promise<Pod> =>
    api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...(nodeName ? { nodeName } : {}) } });
  const hello = async (e: NodeDouble, holds: ObjectRef[] = []): Promise<DownMessage> => {
    const h = await e.send({ type: 'hello', body: { bootId: 'boot-1', holds } });
    const [synced] = await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
    return synced!;
  };
  const ackAll = async (e: NodeDouble, type: 'apply' | 'delete'): Promise<void> => {
    for (const m of e.received.filter(isType(type))) await e.send({ type: 'ack', parentId: m.id });
  };

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    ledger = new MemoryAckLedger();
    logs = memoryLogger('cloud');
    hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: logs, ledger });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub.close();
    await sync.close();
  });

  it('answers a hello with empty holds with the node’s pods, then synced', async () => {
    const mine = await createPod('web', 'edge-1');
    await createPod('other', 'edge-2');
    await createPod('pending');
    const e = await edge();
    const synced = await hello(e);
    expect(synced).toMatchObject({ sender: 'cloud', body: { applies: 1, deletes: 0 } });
    const applies = e.received.filter(isType('apply'));
    expect(applies).toHaveLength(1);
    expect(applies[0]).toMatchObject({ ref: { kind: 'Pod', name: 'web', uid: mine.metadata.uid, resourceVersion: mine.metadata.resourceVersion }, body: { spec: { nodeName: 'edge-1' } } });
    expect(e.received.indexOf(applies[0]!)).toBeLessThan(e.received.indexOf(synced));
    expect(hub.connectedNodes()).toEqual(['edge-1']);
  });

  it('records an ack in the ledger and does not re-send', async () => {
    const pod = await createPod('web', 'edge-1');
    const e = await edge();
    await hello(e);
    await ackAll(e, 'apply');
    await runUntil(clock, () => hub.stats().acked === 1, 'ack counted');
    expect(ledger.get('edge-1', pod.metadata.uid!)).toMatchObject({ name: 'web', resourceVersion: pod.metadata.resourceVersion });
    await pass(clock, timing.resendMaxMs * 4, 500);
    expect(e.received.filter(isType('apply'))).toHaveLength(1);
    expect(hub.stats().resent).toBe(0);
  });

  it('re-sends an unacked apply after resendMinMs, then backs off', async () => {
    await createPod('web', 'edge-1');
    const e = await edge();
    await hello(e);
    await pass(clock, timing.resendMinMs - 1);
    expect(e.received.filter(isType('apply'))).toHaveLength(1);
    await pass(clock, 1);
    const copies = await e.expect(isType('apply'), 2, 're-sent apply');
    expect(copies[1]!.id).toBe(copies[0]!.id);
    await pass(clock, timing.resendMinMs * 2 - 1);
    expect(e.received.filter(isType('apply'))).toHaveLength(2);
    await pass(clock, 1);
    await e.expect(isType('apply'), 3, 'second re-send');
    expect(hub.stats().resent).toBe(2);
  });

  it('counts the payload bytes of every down message it publishes, re-sends included', async () => {
    await createPod('web', 'edge-1');
    const e = await edge();
    await hello(e);
    await pass(clock, timing.resendMinMs);
    await e.expect(isType('apply'), 2, 're-sent apply');
    expect(hub.stats().sentBytes).toBe(e.received.reduce((sum, m) => sum + encode(m).length, 0));
  });

  it('sends a pod created while connected, and a tombstone when it is deleted', async () => {
    const e = await edge();
    await hello(e);
    const pod = await createPod('web', 'edge-1');
    await e.expect(isType('apply'));
    await ackAll(e, 'apply');
    await runUntil(clock, () => ledger.get('edge-1', pod.metadata.uid!), 'ledger entry');
    await api.delete({ resource: 'pods', namespace: 'default', name: 'web' });
    const [tombstone] = await e.expect(isType('delete'), 1, 'tombstone');
    expect(tombstone).toMatchObject({ ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: pod.metadata.uid } });
    await e.send({ type: 'ack', parentId: tombstone!.id });
    await runUntil(clock, () => !ledger.get('edge-1', pod.metadata.uid!), 'ledger forgets');
  });

  it('answers a hello holding a stale version and an unknown uid with one apply and one delete', async () => {
    const pod = await createPod('web', 'edge-1');
    const updated = await api.patch<Pod>({ resource: 'pods', namespace: 'default', name: 'web' }, { metadata: { labels: { v: '2' } } });
    const e = await edge();
    const stale: ObjectRef = { kind: 'Pod', namespace: 'default', name: 'web', uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion! };
    const unknown: ObjectRef = { kind: 'Pod', namespace: 'default', name: 'ghost', uid: 'gone-uid', resourceVersion: '1' };
    const synced = await hello(e, [stale, unknown]);
    expect(synced.type === 'synced' && synced.body).toEqual({ applies: 1, deletes: 1 });
    expect(e.received.filter(isType('apply')).map((m) => m.type === 'apply' && m.ref.resourceVersion)).toEqual([updated.metadata.resourceVersion]);
    expect(e.received.filter(isType('delete')).map((m) => m.type === 'delete' && m.ref.uid)).toEqual(['gone-uid']);
    expect([...ledger.held('edge-1').keys()].sort()).toEqual([pod.metadata.uid, 'gone-uid'].sort());
  });

  it('registers the Node on the first nodeStatus and then updates only its status', async () => {
    const e = await edge();
    const report = (ready: string, unschedulable: boolean): Node => ({
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', labels: { 'kubernetes.io/hostname': 'edge-1' } },
      spec: { unschedulable },
      status: { conditions: [{ type: 'Ready', status: ready as 'True' }] },
    });
    const first = await e.send({ type: 'nodeStatus', body: report('True', false) });
    await e.expect((m) => m.type === 'ack' && m.parentId === first.id, 1, 'ack of first nodeStatus');
    const created = await api.get<Node>({ resource: 'nodes', name: 'edge-1' });
    expect(created.status?.conditions?.[0]?.status).toBe('True');
    // The cloud, not the edge, gives a node it registers its role.
    expect(created.metadata.labels).toEqual({ 'kubernetes.io/hostname': 'edge-1', 'node-role.kubernetes.io/edge': '' });
    await api.replace<Node>({ resource: 'nodes', name: 'edge-1' }, { ...created, spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] } });
    const second = await e.send({ type: 'nodeStatus', body: report('False', false) });
    await e.expect((m) => m.type === 'ack' && m.parentId === second.id, 1, 'ack of second nodeStatus');
    const updated = await api.get<Node>({ resource: 'nodes', name: 'edge-1' });
    expect(updated.status?.conditions?.[0]?.status).toBe('False');
    expect(updated.spec).toEqual({ unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] });
  });

  it('a heartbeat renews a stale Ready heartbeat time, without an ack', async () => {
    const e = await edge();
    const body: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2020-01-01T00:00:00Z' }] } };
    const status = await e.send({ type: 'nodeStatus', body });
    await e.expect((m) => m.type === 'ack' && m.parentId === status.id, 1, 'ack of nodeStatus');
    await clock.advance(10_000);
    await e.send({ type: 'heartbeat' });
    const beat = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await runUntil(clock, async () => (await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.[0]?.lastHeartbeatTime === beat, 'heartbeat time');
    expect(e.received.filter(isType('ack'))).toHaveLength(1);
  });

  it('a heartbeat renews the node Lease and leaves the Node alone while the edge’s full reports keep its heartbeat time fresh', async () => {
    const e = await edge();
    const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const body: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: at(clock.now()) }] } };
    const status = await e.send({ type: 'nodeStatus', body });
    await e.expect((m) => m.type === 'ack' && m.parentId === status.id, 1, 'ack of nodeStatus');
    const reported = await api.get<Node>({ resource: 'nodes', name: 'edge-1' });
    const leaseRef = { resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'edge-1' };
    const renewed = async () => (await api.get<{ spec: { renewTime: string } } & Node>(leaseRef).catch(() => undefined))?.spec.renewTime;
    for (let beat = 1; beat <= 6; beat++) {
      await clock.advance(timing.nodeStatusIntervalMs);
      await e.send({ type: 'heartbeat' });
      const now = clock.now();
      await runUntil(clock, async () => Date.parse((await renewed()) ?? '') >= now - 1, `lease renewed at beat ${beat}`);
    }
    expect((await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).metadata.resourceVersion).toBe(reported.metadata.resourceVersion);
    // The edge's reports stopped moving it (2 report periods): the heartbeat writes it itself.
    await clock.advance(2 * timing.nodeStatusReportMs);
    await e.send({ type: 'heartbeat' });
    await runUntil(clock, async () => (await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.[0]?.lastHeartbeatTime === at(clock.now()), 'heartbeat time');
  });

  it('a heartbeat after the node controller marked the node Unknown brings back what the edge last reported', async () => {
    const e = await edge();
    const body: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } };
    const status = await e.send({ type: 'nodeStatus', body });
    await e.expect((m) => m.type === 'ack' && m.parentId === status.id, 1, 'ack of nodeStatus');
    const node = await api.get<Node>({ resource: 'nodes', name: 'edge-1' });
    const unknown = { type: 'Ready', status: 'Unknown' as const, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' };
    await api.replace<Node>({ resource: 'nodes', name: 'edge-1', subresource: 'status' }, { ...node, status: { conditions: [unknown] } });
    await e.send({ type: 'heartbeat' });
    await runUntil(clock, async () => (await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.[0]?.status === 'True', 'Ready again');
    expect((await api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.[0]).toMatchObject({ reason: 'KubeletReady' });
  });

  it('applies a podStatus only to the pod with the same uid, and acks both', async () => {
    const pod = await createPod('web', 'edge-1');
    const e = await edge();
    const ref = (uid: string): ObjectRef => ({ kind: 'Pod', namespace: 'default', name: 'web', uid });
    const wrong = await e.send({ type: 'podStatus', ref: ref('someone-else'), body: { phase: 'Failed' } });
    await e.expect((m) => m.type === 'ack' && m.parentId === wrong.id, 1, 'ack of wrong-uid status');
    expect((await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' })).status).toBeUndefined();
    const right = await e.send({ type: 'podStatus', ref: ref(pod.metadata.uid!), body: { phase: 'Running', podIP: '10.0.0.5' } });
    await e.expect((m) => m.type === 'ack' && m.parentId === right.id, 1, 'ack of status');
    const after = await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' });
    expect(after.status).toEqual({ phase: 'Running', podIP: '10.0.0.5' });
    expect(after.spec.nodeName).toBe('edge-1');
  });

  it('counts and drops malformed payloads and keeps serving', async () => {
    const x = sync.node('x'); // a bare client: no will, no protocol
    x.start({ subscriptions: [] });
    await runUntil(clock, () => x.connectivity.connected, 'x connected');
    await x.publish('kedge/v1/x/up', Buffer.from('not json {'));
    await x.publish('kedge/v1/x/up', Buffer.from(JSON.stringify({ v: 1, id: 'a.1', seq: 1, sender: 'x', epoch: 'a', type: 'launch' })));
    await x.publish('kedge/v1/x/presence', Buffer.from('{"online":"yes"}'));
    const e = await edge();
    await e.publish('kedge/v1/edge-1/up', JSON.stringify({ v: 1, id: 'a.1', seq: 1, sender: 'edge-2', epoch: 'a', type: 'ack', parentId: 'p' }));
    await runUntil(clock, () => hub.stats().malformed === 4, 'malformed counted');
    await createPod('web', 'edge-1');
    await hello(e);
    expect(e.received.filter(isType('apply'))).toHaveLength(1);
    expect(hub.stats()).toMatchObject({ malformed: 4, received: 1 });
    const dropped = logs.lines.filter((l) => l.includes('dropped malformed message'));
    expect(dropped).toHaveLength(1); // sampled: the first, then one line per interval
    expect(dropped[0]).toMatch(/"topic":"kedge\/v1\/x\/up".*not JSON/);
  });

  it('stops sending when the node goes offline with the same epoch, and resyncs on the next hello', async () => {
    await createPod('web', 'edge-1');
    const e = await edge();
    await hello(e);
    await e.presence(false);
    await runUntil(clock, () => hub.connectedNodes().length === 0, 'node offline');
    await pass(clock, timing.resendMaxMs * 2, 500);
    await createPod('api', 'edge-1');
    await pass(clock, timing.resendMaxMs * 2, 500);
    expect(e.received.filter(isType('apply'))).toHaveLength(1);
    const synced = await hello(e, []);
    expect(synced.type === 'synced' && synced.body).toEqual({ applies: 2, deletes: 0 });
  });

  it('resumes a node whose online presence was retained before the hub subscribed, from its ledger [SYNC-14]', async () => {
    await api.create<Node>({ resource: 'nodes' }, { metadata: { name: 'edge-1' } }); // a ledger without its Node is dropped at start
    const web = await createPod('web', 'edge-1');
    const e = await edge();
    await hello(e);
    await ackAll(e, 'apply');
    await runUntil(clock, () => ledger.get('edge-1', web.metadata.uid!), 'web in the ledger');
    await e.presence(true);
    await hub.close();

    const api2 = await createPod('api', 'edge-1');
    hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: logs, ledger });
    await runUntil(clock, () => hub.connectedNodes().includes('edge-1'), 'edge-1 resumed');
    const [apply] = await e.expect((m) => m.type === 'apply' && m.ref.uid === api2.metadata.uid, 1, 'the pod created meanwhile');
    // Its own Node [SYNC-19] and web went down once, before the restart; the resume sends only api.
    expect(e.received.filter(isType('apply')).map((m) => m.type === 'apply' && m.ref.name)).toEqual(['edge-1', 'web', 'api']);
    expect(e.received.filter(isType('synced'))).toHaveLength(1);
    await e.send({ type: 'ack', parentId: apply!.id });
    await runUntil(clock, () => ledger.get('edge-1', api2.metadata.uid!), 'api in the ledger');
  });

  it('takes a live presence online for no hello', async () => {
    const e = await edge();
    await e.presence(true);
    await e.send({ type: 'heartbeat' });
    await runUntil(clock, () => hub.stats().received >= 2, 'presence and heartbeat handled');
    expect(hub.connectedNodes()).toEqual([]);
    expect(e.received).toEqual([]);
  });
});
