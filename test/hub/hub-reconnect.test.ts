import { connectAsync } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startBroker, type BrokerHandle, type BrokerOptions } from '../../cloud/hub/broker.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { DownMessage } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { MqttEdge } from '../support/mqtt-edge.js';
import { waitFor } from '../support/wait.js';
import { cloudLink } from '../support/mqtt-transports.js';

const timing = { ...defaultTiming, reconnectMinMs: 100, reconnectMaxMs: 400 };
const brokerOptions = (port = 0): BrokerOptions => ({
  port,
  authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret'),
  logger: silentLogger,
  nodesWaitForCloud: true,
});

describe('cloud hub: the broker goes away and comes back', () => {
  let broker: BrokerHandle;
  let api: FakeApiClient;
  let clock: FakeClock;
  let ledger: MemoryAckLedger;
  let hub: CloudHubHandle | undefined;
  const edges: MqttEdge[] = [];

  const startHub = async (): Promise<CloudHubHandle> =>
    (hub = await startCloudHub({ api, apiAsNode: () => api, ...cloudLink(broker.url, { clock, timing }), clock, timing, logger: silentLogger, ledger }));
  const edge = async (node = 'edge-1'): Promise<MqttEdge> => {
    const e = await MqttEdge.connect(broker.url, node, 'node-secret');
    edges.push(e);
    return e;
  };
  const hello = async (e: MqttEdge): Promise<DownMessage> => {
    const h = await e.send({ type: 'hello', body: { bootId: 'boot-1', holds: [] } });
    return (await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, 'synced'))[0]!;
  };

  beforeEach(async () => {
    broker = await startBroker(brokerOptions());
    api = new FakeApiClient();
    clock = new FakeClock();
    ledger = new MemoryAckLedger();
  });
  afterEach(async () => {
    await Promise.all(edges.splice(0).map((e) => e.close()));
    await hub?.close();
    hub = undefined;
    await broker.close();
  });

  it('refuses nodes until a hub listens, and disconnects them when it leaves', async () => {
    const attempt = () => connectAsync(broker.url, { clientId: 'edge-1', username: 'edge-1', password: 'node-secret', protocolVersion: 4, reconnectPeriod: 0 });
    await expect(attempt()).rejects.toThrow(/unavailable/i);
    await startHub();
    const e = await edge();
    await hub!.close();
    await waitFor(() => !e.client.connected, 'node disconnected');
    await expect(attempt()).rejects.toThrow(/unavailable/i);
  });

  it('reconnects on the clock, forgets every node until its next hello, then resyncs it', async () => {
    await startHub();
    const pod = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' } });
    const first = await edge();
    await hello(first);
    expect(hub!.connectedNodes()).toEqual(['edge-1']);

    const port = broker.port;
    await broker.close();
    await waitFor(() => hub!.connectedNodes().length === 0, 'node no longer connected');
    await api.delete({ resource: 'pods', namespace: 'default', name: 'web' });
    await clock.advance(1_000); // attempts against a closed port, backing off
    await wallDelay(20);
    expect(first.received.filter((m) => m.type === 'delete')).toEqual([]); // nothing to a disconnected node

    broker = await startBroker(brokerOptions(port));
    for (let i = 0; i < 40 && !(await edgeAdmitted()); i++) await clock.advance(100);
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
    await waitFor(() => ledger.nodes().length === 0, 'ledger of the deleted node dropped');
  });

  /** Whether a node may connect (the hub has resubscribed on the new broker). */
  async function edgeAdmitted(): Promise<boolean> {
    await wallDelay(5);
    try {
      const c = await connectAsync(broker.url, { username: 'probe', password: 'node-secret', protocolVersion: 4, reconnectPeriod: 0, clientId: 'probe' });
      await c.endAsync(true);
      return true;
    } catch {
      return false;
    }
  }
});
