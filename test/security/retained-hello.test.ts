import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { DENIED, startBroker } from '../../cloud/hub/broker.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { HUB_REJECTED } from '../../cloud/hub/inbound-handler.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger, silentLogger } from '../../shared/log.js';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { startTestBroker } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';
import { cloudLink } from '../support/mqtt-transports.js';

const stamper = new EnvelopeStamper('edge-1', 'e-old');
const retainedHello = encode(stamper.stamp({ type: 'hello', body: { bootId: 'b', holds: [] } }));

/**
 * A retained `hello` is never taken for a live one. A node may set the retain flag on its up
 * topic; the broker would replay that hello to a hub that subscribes later, which would then
 * answer it and count the node connected. The embedded broker refuses retained publishes
 * off the presence topics, and the hub ignores retained up messages whatever the broker
 * (Mosquitto's ACL cannot strip the flag); the retained presence still resumes a node.
 */
describe('a retained hello is never taken for a live one', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const node = async (url: string, password = 'node-secret'): Promise<{ client: MqttClient; downs: DownMessage[] }> => {
    const client = await connectAsync(url, { clientId: 'edge-1', username: 'edge-1', password, protocolVersion: 4, reconnectPeriod: 0 });
    cleanups.push(() => client.endAsync(true));
    const downs: DownMessage[] = [];
    client.on('message', (_t, p) => {
      const d = decodeDown(p);
      if (d.ok) downs.push(d.message);
    });
    await client.subscribeAsync(topics.down('edge-1'), { qos: 1 });
    return { client, downs };
  };
  const hub = async (brokerUrl: string, counters: Counters, api: FakeApiClient): Promise<CloudHubHandle> => {
    const clock = new FakeClock();
    const h = await startCloudHub({ api, apiAsNode: () => api, ...cloudLink(brokerUrl, { clock }), clock, timing: defaultTiming, logger: memoryLogger('cloud'), ledger: new MemoryAckLedger(), counters });
    cleanups.push(() => h.close());
    return h;
  };

  it('the embedded broker refuses a retained publish on an up topic; a hub that comes later hears no hello', async () => {
    const counters = new Counters();
    const broker = await startBroker({ port: 0, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret'), logger: silentLogger, counters });
    cleanups.push(() => broker.close());
    const { client } = await node(broker.url);
    client.publish(topics.up('edge-1'), retainedHello, { qos: 1, retain: true });
    await waitFor(() => !client.connected, 'the node dropped for its retained publish');
    expect(counters.get(DENIED, { action: 'retain' })).toBe(1);

    // The node is back before the hub: had the broker kept the hello, the hub would answer it too.
    const again = await node(broker.url);
    const h = await hub(broker.url, counters, new FakeApiClient());
    const live = stamper.stamp({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await again.client.publishAsync(topics.up('edge-1'), encode(live), { qos: 1 });
    await waitFor(() => again.downs.some((m) => m.type === 'synced'), 'synced for the live hello');
    expect(again.downs.filter((m) => m.type === 'synced').map((m) => m.type === 'synced' && m.parentId)).toEqual([live.id]);
    expect(h.connectedNodes()).toEqual(['edge-1']);
    expect(counters.get(HUB_REJECTED, { reason: 'retained' })).toBe(0); // nothing was replayed
  });

  it('the hub ignores a retained hello from a broker that keeps it, and still resumes from the retained presence', async () => {
    const broker = await startTestBroker(); // no ACL, as an external broker that cannot strip the flag
    cleanups.push(() => broker.close());
    const { client, downs } = await node(broker.url);
    await client.publishAsync(topics.presence('edge-1'), encode({ online: true, epoch: 'e-old' }), { qos: 1, retain: true });
    await client.publishAsync(topics.up('edge-1'), retainedHello, { qos: 1, retain: true });

    const counters = new Counters();
    const api = new FakeApiClient();
    await api.create({ resource: 'nodes' }, { metadata: { name: 'edge-1' } });
    const pod = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' } });
    const h = await hub(broker.url, counters, api);

    await waitFor(() => counters.get(HUB_REJECTED, { reason: 'retained' }) === 1, 'the retained hello rejected');
    // Resumed from the retained presence [SYNC-14]: the pod goes down, but no hello was answered.
    await waitFor(() => downs.some((m) => m.type === 'apply' && m.ref.uid === pod.metadata.uid), 'the pod sent on resume');
    expect(h.connectedNodes()).toEqual(['edge-1']);
    expect(downs.filter((m) => m.type === 'synced')).toEqual([]);
  });
});
