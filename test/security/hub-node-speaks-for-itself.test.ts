import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import { HUB_REJECTED } from '../../cloud/hub/inbound-handler.js';
import { FakeClock } from '../../shared/clock.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import type { DownMessage, LogChunk, ObjectRef } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { MemoryEdge } from '../support/memory-edge.js';
import { memoryCloudLink } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

const chunk = (text: string): LogChunk => ({ text, cursor: { containerId: 'c-0', time: 1, count: 1 }, exited: false });
const refOf = (pod: Pod): ObjectRef => ({ kind: 'Pod', namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, resourceVersion: pod.metadata.resourceVersion! });

/**
 * A node answers only for itself: a log answer counts only from the node the request went to,
 * a pod status only from the node the pod is bound to (and nothing is recorded for one that
 * is refused, status versions included), a hello holds only the node's own pods, an ack
 * settles only what was sent to that node. edge-1 is the attacker, edge-2 the victim.
 */
describe('the hub takes from a node only what is its own', () => {
  let broker: MemoryBroker;
  let clock: FakeClock;
  let api: FakeApiClient;
  let ledger: MemoryAckLedger;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  let hub: CloudHubHandle;
  let edge1: MemoryEdge;
  let edge2: MemoryEdge;
  let victim: Pod;

  const hello = async (e: MemoryEdge, holds: ObjectRef[] = []): Promise<void> => {
    const h = await e.send({ type: 'hello', body: { bootId: 'b', holds } });
    await e.expect((m) => m.type === 'synced' && m.parentId === h.id, 1, `synced for ${e.node}`);
  };
  const rejected = (reason: string): number => counters.get(HUB_REJECTED, { reason });
  const logged = (text: string): boolean => log.lines.some((l) => l.includes('hub rejected a message') && l.includes(text));

  beforeEach(async () => {
    clock = new FakeClock();
    broker = new MemoryBroker({ clock, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret') });
    api = new FakeApiClient();
    ledger = new MemoryAckLedger();
    counters = new Counters();
    log = memoryLogger('cloud');
    victim = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'db', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-2' } });
    hub = await startCloudHub({ api, apiAsNode: () => api, ...memoryCloudLink(broker, clock, { logger: log }), clock, timing: defaultTiming, logger: log, ledger, counters });
    edge1 = await MemoryEdge.connect(broker, clock, 'edge-1', 'node-secret');
    edge2 = await MemoryEdge.connect(broker, clock, 'edge-2', 'node-secret');
    await hello(edge1);
    await hello(edge2);
  });
  afterEach(async () => {
    await edge1.close();
    await edge2.close();
    await hub.close();
    broker.stop();
  });

  it("edge-1 cannot answer `kubectl logs` of a pod on edge-2", async () => {
    const logs = hub.podLogs('edge-2', refOf(victim), {});
    const [request] = await edge2.expect((m) => m.type === 'logRequest', 1, 'the log request at edge-2');
    // Request ids are <epoch>.<seq>: edge-1 sees the epoch in its own down messages and can guess them.
    await edge1.send({ type: 'logResponse', parentId: request!.id, body: chunk('forged by edge-1\n') });
    await runUntil(clock, () => rejected('log-of-another-node') === 1, 'the forged answer rejected');
    expect(logged('node edge-1 answered a log request sent to another node')).toBe(true);
    await edge2.send({ type: 'logResponse', parentId: request!.id, body: chunk('the real log\n') });
    await expect(logs).resolves.toEqual(chunk('the real log\n'));
  });

  it("edge-1 cannot write the status of edge-2's pod, nor freeze it with a huge statusVersion", async () => {
    const forged = await edge1.send({ type: 'podStatus', ref: refOf(victim), body: { phase: 'Failed', reason: 'Forged' }, statusVersion: Number.MAX_SAFE_INTEGER });
    await edge1.expect((m) => m.type === 'ack' && m.parentId === forged.id, 1, 'the forgery acked (and dropped)');
    expect(rejected('pod-of-another-node')).toBe(1);
    expect(logged('node edge-1 sent the status of pod default/db, bound to node edge-2')).toBe(true);
    // edge-2's own report, with an ordinary version, is still written.
    const real = await edge2.send({ type: 'podStatus', ref: refOf(victim), body: { phase: 'Running' }, statusVersion: 7 });
    await edge2.expect((m) => m.type === 'ack' && m.parentId === real.id, 1, 'the real status acked');
    expect((await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'db' })).status).toEqual({ phase: 'Running' });
  });

  it("edge-1 cannot claim in its hello to hold edge-2's pod", async () => {
    const mine = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-1' } });
    await edge1.expect((m) => m.type === 'apply' && m.ref.uid === mine.metadata.uid, 1, 'web sent to edge-1');
    const before = edge1.received.length;
    await hello(edge1, [refOf(mine), refOf(victim)]);
    expect(rejected('hold-of-another-node')).toBe(1);
    expect(ledger.get('edge-1', victim.metadata.uid!)).toBeUndefined();
    expect(ledger.get('edge-1', mine.metadata.uid!)).toBeDefined();
    const answer = edge1.received.slice(before);
    expect(answer.filter((m: DownMessage) => m.type === 'delete')).toEqual([]); // no tombstone for what it never held
  });

  it("edge-1 cannot acknowledge what was sent to edge-2", async () => {
    const pod = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'api', namespace: 'default' }, spec: { containers: [{ name: 'c' }], nodeName: 'edge-2' } });
    const [apply] = await edge2.expect((m) => m.type === 'apply' && m.ref.uid === pod.metadata.uid, 1, 'api sent to edge-2');
    await edge1.send({ type: 'ack', parentId: apply!.id });
    await hello(edge1); // a node's messages are handled in order: the ack came first
    expect(ledger.get('edge-2', pod.metadata.uid!)).toBeUndefined();
    expect(hub.stats().acked).toBe(0);
  });
});
