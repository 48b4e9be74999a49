import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';
import type { DownMessage } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass, runUntil } from '../support/settle.js';

const timing = { ...defaultTiming, reconnectMinMs: 100, reconnectMaxMs: 400 };

describe('cloud hub: the broker goes away and comes back', () => {
  let sync: MemorySync;
  let brokerLog: ReturnType<typeof memoryLogger>;
  let api: FakeApiClient;
  let clock: FakeClock;
  let ledger: MemoryAckLedger;
  let hub: CloudHubHandle | undefined;

  const startHub = async (): Promise<CloudHubHandle> =>
    (hub = await startCloudHub({ api, apiAsNode: () => api, ...sync.cloudLink(), clock, timing, logger: silentLogger, ledger }));
  const edge = (node = 'edge-1'): Promise<NodeDouble> => NodeDouble.connect(sync, node);
  const hello = async (e: NodeDouble): Promise<DownMessage> => {
    const h = await e.send({ type: 'hello', body: { bootId: 'boot-1', holds: [] } });
    return (await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced'))[0]!;
  };
  /** The broker's refusals of nodes for want of a hub so far. */
  const refusedForNoHub = (): number => brokerLog.lines.filter((l) => l.includes('refused a client') && l.includes('no-hub-yet')).length;

  beforeEach(() => {
    clock = new FakeClock();
    brokerLog = memoryLogger('broker');
    sync = new MemorySync({ clock, timing, logger: brokerLog, nodesWaitForCloud: true });
    api = new FakeApiClient();
    ledger = new MemoryAckLedger();
  });
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    await sync.close();
  });

  it('refuses nodes until a hub listens, and disconnects them when it leaves', async () => {
    const early = sync.node('edge-1');
    early.start({ subscriptions: [] });
    await runUntil(clock, () => refusedForNoHub() > 0, 'a node refused before the hub');
    expect(early.connectivity.connected).toBe(false);
    await early.close();
    await startHub();
    const e = await edge();
    const refusedBefore = refusedForNoHub();
    await hub!.close();
    await runUntil(clock, () => !e.transport.connectivity.connected, 'node disconnected');
    // It tries again, and is refused for want of a hub.
    await runUntil(clock, () => refusedForNoHub() > refusedBefore, 'the node refused again');
    expect(e.transport.connectivity.connected).toBe(false);
  });

  it('reconnects on the clock, forgets every node until its next hello, then resyncs it', async () => {
    await startHub();
    const pod = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' } });
    const first = await edge();
    await hello(first);
    expect(hub!.connectedNodes()).toEqual(['edge-1']);

    sync.broker.stop(); // every client drops, without its will
    await first.close(); // this node stays away; only the hub comes back by itself
    await runUntil(clock, () => hub!.connectedNodes().length === 0, 'node no longer connected');
    await api.delete({ resource: 'pods', namespace: 'default', name: 'web' });
    await pass(clock, 1_000); // attempts against a broker that is down, backing off
    expect(hub!.brokerLink().up).toBe(false);
    expect(first.received.filter((m) => m.type === 'delete')).toEqual([]); // nothing to a disconnected node

    sync.broker.start();
    await runUntil(clock, () => hub!.brokerLink().up, 'the hub resubscribed', { budgetMs: timing.reconnectMaxMs * 2 });
    const second = await edge();
    const h = await second.send({ type: 'hello', body: { bootId: 'boot-1', holds: [{ kind: 'Pod', namespace: 'default', name: 'web', uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion! }] } });
    await second.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced after the restart');
    const [tombstone] = await second.expect((m) => m.type === 'delete', 1, 'tombstone');
    expect(tombstone).toMatchObject({ ref: { name: 'web', uid: pod.metadata.uid } });
    expect(hub!.connectedNodes()).toEqual(['edge-1']);
  });

  it('drops the ledger of a deleted node that is not connected', async () => {
    ledger.record('edge-9', { kind: 'Pod', namespace: 'default', name: 'x', uid: 'u1', resourceVersion: '1' });
    await api.create({ resource: 'nodes' }, { metadata: { name: 'edge-1' } });
    ledger.record('edge-1', { kind: 'Pod', namespace: 'default', name: 'y', uid: 'u2', resourceVersion: '1' });
    await startHub();
    expect(ledger.nodes()).toEqual(['edge-1']); // edge-9 has no Node: collected at start
    await api.delete({ resource: 'nodes', name: 'edge-1' });
    await runUntil(clock, () => ledger.nodes().length === 0, 'ledger of the deleted node dropped');
  });
});
