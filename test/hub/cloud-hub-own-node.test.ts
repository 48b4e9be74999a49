import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { DownMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass } from '../support/settle.js';

const timing = { ...defaultTiming, resendMinMs: 2_000, resendMaxMs: 16_000 };
const nodeRef = { resource: 'nodes', name: 'edge-1' };
type Apply = Extract<DownMessage, { type: 'apply' }>;
const nodeApplies = (e: NodeDouble): Apply[] => e.received.filter((m): m is Apply => m.type === 'apply' && m.ref.kind === 'Node');
/** The Node as the edge reports it: its own view, which knows nothing of a podCIDR. */
const reported = (heartbeat: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: heartbeat }] } });

describe('each node holds its own Node, and its heartbeats never touch the spec [SYNC-19]', () => {
  let sync: MemorySync;
  let api: FakeApiClient;
  let clock: FakeClock;
  let hub: CloudHubHandle;
  const edges: NodeDouble[] = [];

  const node = async (name: string, holds: ObjectRef[] = []): Promise<NodeDouble> => {
    const e = await NodeDouble.connect(sync, name);
    edges.push(e);
    await e.hello(holds);
    return e;
  };
  const ackAll = async (e: NodeDouble): Promise<void> => {
    for (const m of e.received) if (m.type === 'apply' || m.type === 'delete') await e.send({ type: 'ack', parentId: m.id });
    await pass(clock, 100, 50);
  };

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: silentLogger });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub.close();
    await sync.close();
  });

  it('sends the Node on registration and on a new podCIDR, never on heartbeats or status reports, and to that node only', async () => {
    const e1 = await node('edge-1');
    const e2 = await node('edge-2');
    await e1.send({ type: 'nodeStatus', body: reported('t0') });
    await e1.expect<Apply>((m) => m.type === 'apply' && m.ref.kind === 'Node' && (m.body as Node).metadata.labels?.['node-role.kubernetes.io/edge'] === '', 1, 'the registered Node, with its role');
    await ackAll(e1);
    const registered = nodeApplies(e1).length;

    // The node-IPAM controller gives the node its podCIDR (as the cloud, on the main resource).
    const current = await api.get<Node>(nodeRef);
    await api.replace<Node>(nodeRef, { ...current, spec: { podCIDR: '127.64.1.0/24', podCIDRs: ['127.64.1.0/24'] } });
    const [withCidr] = await e1.expect<Apply>((m) => m.type === 'apply' && m.ref.kind === 'Node' && (m.body as Node).spec?.podCIDR !== undefined, 1, 'the Node with its podCIDR');
    const labels = { 'node-role.kubernetes.io/edge': '' };
    expect(withCidr!.body).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1', uid: current.metadata.uid, resourceVersion: withCidr!.ref.resourceVersion, labels }, spec: { podCIDR: '127.64.1.0/24', podCIDRs: ['127.64.1.0/24'] } });
    await ackAll(e1);

    for (let beat = 1; beat <= 6; beat++) {
      await clock.advance(10_000);
      await e1.send({ type: 'heartbeat' });
    }
    await e1.send({ type: 'nodeStatus', body: reported('t1') }); // a full report, spec {} and all
    await pass(clock, timing.resendMaxMs * 2, 500);
    const after = await api.get<Node>(nodeRef);
    expect(after.spec).toEqual({ podCIDR: '127.64.1.0/24', podCIDRs: ['127.64.1.0/24'] });
    expect(after.status?.conditions?.[0]?.lastHeartbeatTime).toBe('t1');
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(withCidr!.ref.resourceVersion));
    expect(nodeApplies(e1)).toHaveLength(registered + 1);
    expect(nodeApplies(e2)).toEqual([]);

    // A hello holding that version gets no Node; one holding the first gets the newer.
    const held = (m: Apply): ObjectRef => m.ref;
    const again = await node('edge-1', [held(withCidr!)]);
    expect(nodeApplies(again)).toEqual([]);
    const [first] = nodeApplies(e1);
    const older = await node('edge-1', [held(first!)]);
    expect(nodeApplies(older).map((m) => m.ref.resourceVersion)).toEqual([withCidr!.ref.resourceVersion]);
  });
});
