import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { HUB_REJECTED } from '../../cloud/hub/inbound-handler.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { KedgeError } from '../../shared/errors.js';
import { memoryLogger } from '../../shared/log.js';
import type { EdgeEvent, UpMessage } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { MemoryEdge } from '../support/memory-edge.js';
import { memoryCloudLink } from '../support/memory-sync.js';
import { pass } from '../support/settle.js';

const events = { resource: 'events', namespace: 'default' };

/**
 * [SYNC-21] The hub writes the Events a node reports about its own Node and pods, as that node,
 * once however often they are sent, counting up and never down; it refuses, counts and acks
 * anything else, and leaves unacked what the store could not take.
 */
describe('the hub takes Events from a node about its own objects only', () => {
  let broker: MemoryBroker;
  let clock: FakeClock;
  let api: FakeApiClient;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  let hub: CloudHubHandle;
  let edge1: MemoryEdge;
  let asNode: string[];
  let node1: Node;
  let own: Pod;
  let foreign: Pod;

  const bind = (name: string, nodeName: string) =>
    api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName } });
  const about = (pod: Pod, fieldPath?: string): EdgeEvent['involvedObject'] => ({ kind: 'Pod', namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, ...(fieldPath ? { fieldPath } : {}) });
  const edgeEvent = (name: string, involvedObject: EdgeEvent['involvedObject'], count = 1): EdgeEvent => ({
    name, involvedObject, reason: 'Started', message: 'Started container c', type: 'Normal', count, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: `2026-01-01T00:00:0${count}Z`,
  });
  /** Sends the Event and waits for its ack. */
  const report = async (body: EdgeEvent): Promise<UpMessage> => {
    const sent = await edge1.send({ type: 'event', body });
    await edge1.expect((m) => m.type === 'ack' && m.parentId === sent.id, 1, `the ack of ${body.name}`);
    return sent;
  };
  const stored = (name: string) => api.get<KubeEvent>({ ...events, name });
  const rejected = (): number => counters.get(HUB_REJECTED, { reason: 'event-of-another-node' });

  beforeEach(async () => {
    clock = new FakeClock();
    broker = new MemoryBroker({ clock, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret') });
    api = new FakeApiClient();
    counters = new Counters();
    log = memoryLogger('cloud');
    asNode = [];
    node1 = await api.create<Node>({ resource: 'nodes' }, { metadata: { name: 'edge-1' } });
    own = await bind('web', 'edge-1');
    foreign = await bind('db', 'edge-2');
    const apiAsNode = (node: string) => (asNode.push(node), api);
    hub = await startCloudHub({ api, apiAsNode, ...memoryCloudLink(broker, clock, { logger: log }), clock, timing: defaultTiming, logger: log, counters });
    edge1 = await MemoryEdge.connect(broker, clock, 'edge-1', 'node-secret');
    const hello = await edge1.send({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await edge1.expect((m) => m.type === 'synced' && m.parentId === hello.id, 1, 'synced');
  });
  afterEach(async () => {
    await edge1.close();
    await hub.close();
    broker.stop();
  });

  it("writes an Event about its pod as the node, as the kubelet's recorder would", async () => {
    await report(edgeEvent('web.1', about(own, 'spec.containers{c}')));
    expect(await stored('web.1')).toMatchObject({
      metadata: { name: 'web.1' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web', uid: own.metadata.uid, fieldPath: 'spec.containers{c}' },
      reason: 'Started', message: 'Started container c', type: 'Normal', count: 1, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:01Z',
      source: { component: 'kubelet', host: 'edge-1' }, reportingComponent: 'kubelet', reportingInstance: 'edge-1',
    });
    expect(asNode).toEqual(['edge-1']);
  });

  it('writes an Event about its own Node in namespace default', async () => {
    await report(edgeEvent('edge-1.1', { kind: 'Node', name: 'edge-1', uid: node1.metadata.uid! }));
    expect((await stored('edge-1.1')).involvedObject).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'edge-1', uid: node1.metadata.uid });
  });

  it("takes the node's name as its Node's uid, as the kubelet's node reference says it", async () => {
    await report(edgeEvent('edge-1.2', { kind: 'Node', name: 'edge-1', uid: 'edge-1' }));
    expect((await stored('edge-1.2')).involvedObject).toEqual({ apiVersion: 'v1', kind: 'Node', name: 'edge-1', uid: 'edge-1' });
  });

  it('counts a repeat up, and never down, however often it is sent again', async () => {
    await report(edgeEvent('web.1', about(own)));
    await report(edgeEvent('web.1', about(own), 3));
    await report(edgeEvent('web.1', about(own), 3)); // a re-send
    await report(edgeEvent('web.1', about(own), 2)); // a late one
    expect(await stored('web.1')).toMatchObject({ count: 3, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:03Z' });
    expect(api.calls.filter((c) => c.startsWith('replace events'))).toHaveLength(1);
  });

  it("refuses, counts and acks an Event about another node's pod, a pod that is gone, or another Node", async () => {
    await report(edgeEvent('db.1', about(foreign)));
    await report(edgeEvent('web.1', { ...about(own), uid: 'not-web' }));
    await report(edgeEvent('edge-2.1', { kind: 'Node', name: 'edge-2', uid: 'x' }));
    await report(edgeEvent('edge-1.1', { kind: 'Node', name: 'edge-1', uid: 'stale' }));
    expect(rejected()).toBe(4);
    expect(log.lines.some((l) => l.includes('node edge-1 reported an event about pod default/db, bound to node edge-2'))).toBe(true);
    expect((await api.list(events)).items).toEqual([]);
  });

  it('leaves unacked an Event the store could not take, and writes it when sent again', async () => {
    const create = api.create.bind(api);
    api.create = (async (ref, body) => {
      if (ref.resource === 'events') throw new KedgeError('Unavailable', 'the store is stopped');
      return create(ref, body);
    }) as typeof api.create;
    const sent = await edge1.send({ type: 'event', body: edgeEvent('web.1', about(own)) });
    await pass(clock, 1_000);
    expect(edge1.received.some((m) => m.type === 'ack' && m.parentId === sent.id)).toBe(false);
    api.create = create;
    await report(edgeEvent('web.1', about(own)));
    expect((await stored('web.1')).count).toBe(1);
  });
});
