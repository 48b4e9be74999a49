import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { HUB_REJECTED } from '../../cloud/hub/inbound-handler.js';
import { Counters } from '../../shared/counters.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { NodeUsage } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { MemoryEdge } from '../support/memory-edge.js';
import { memoryCloudLink } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

/** [SYNC-22] The hub keeps each connected node's newest usage, its own pods only, and forgets it when the node goes away. */
describe("the hub's usage reports", () => {
  let broker: MemoryBroker;
  let clock: FakeClock;
  let api: FakeApiClient;
  let counters: Counters;
  let hub: CloudHubHandle;
  const edges: MemoryEdge[] = [];

  const edge = async (node: string): Promise<MemoryEdge> => {
    const e = await MemoryEdge.connect(broker, clock, node, 'node-secret');
    edges.push(e);
    const h = await e.send({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced');
    return e;
  };
  const createPod = (name: string, nodeName: string): Promise<Pod> =>
    api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName } });
  const podUsage = (pod: Pod): NodeUsage['pods'][number] => ({
    namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, containers: [{ name: 'c', cpu: '1000000n', memory: '8192Ki' }],
  });
  const report = (pods: NodeUsage['pods'], time = clock.now()): NodeUsage => ({ time, windowMs: 15_000, node: { cpu: '5000000n', memory: '65536Ki' }, pods });

  beforeEach(async () => {
    clock = new FakeClock();
    broker = new MemoryBroker({ clock, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret') });
    api = new FakeApiClient();
    counters = new Counters();
    hub = await startCloudHub({ api, apiAsNode: () => api, ...memoryCloudLink(broker, clock), clock, timing: defaultTiming, logger: silentLogger, ledger: new MemoryAckLedger(), counters });
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub.close();
    broker.stop();
  });

  it("keeps the newest report of a node with its own pods; another node's pod is dropped and counted; nothing is acked", async () => {
    const mine = await createPod('mine', 'edge-1');
    const theirs = await createPod('theirs', 'edge-2');
    const e1 = await edge('edge-1');
    const first = await e1.send({ type: 'usage', body: report([podUsage(mine)]) });
    await runUntil(clock, () => hub.nodeUsages().length === 1, 'the first report kept');

    const ghost = { ...podUsage(mine), name: 'ghost', uid: 'no-such-uid' };
    await e1.send({ type: 'usage', body: report([podUsage(mine), podUsage(theirs), ghost], clock.now() + 1) });
    await runUntil(clock, () => counters.get(HUB_REJECTED, { reason: 'usage-of-another-node' }) === 1, 'the foreign pod counted');
    const [kept] = hub.nodeUsages();
    expect(kept!.node).toBe('edge-1');
    expect(kept!.usage.time).toBe(clock.now() + 1);
    expect(kept!.usage.pods.map((p) => p.name)).toEqual(['mine']);
    expect(kept!.usage.node).toEqual({ cpu: '5000000n', memory: '65536Ki' });
    expect(e1.received.some((m) => m.type === 'ack' && m.parentId === first.id)).toBe(false);
  });

  it('forgets the report of a node that goes away, and takes none from a node it does not count as connected', async () => {
    const pod = await createPod('web', 'edge-1');
    const e1 = await edge('edge-1');
    await e1.send({ type: 'usage', body: report([podUsage(pod)]) });
    await runUntil(clock, () => hub.tables().usages === 1, 'the report kept');

    await e1.presence(false);
    await runUntil(clock, () => hub.connectedNodes().length === 0, 'edge-1 offline');
    expect(hub.tables().usages).toBe(0);
    expect(hub.nodeUsages()).toEqual([]);

    await e1.send({ type: 'usage', body: report([podUsage(pod)]) }); // late, after its presence offline
    await clock.advance(1000);
    expect(hub.tables().usages).toBe(0);
  });
});
