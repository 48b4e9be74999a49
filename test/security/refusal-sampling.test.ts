import { connectAsync } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED, startBroker } from '../../cloud/hub/broker.js';
import { startCloudHub } from '../../cloud/hub/cloud-hub.js';
import { JOIN_PATH, JOIN_REFUSED, joinHandler } from '../../cloud/join/join-service.js';
import { EdgeHub } from '../../edge/hub/edge-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters, refusals } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { LOG_SAMPLE_INTERVAL_MS } from '../../shared/log-sampler.js';
import { topics } from '../../shared/protocol/topics.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Transport } from '../../shared/transport.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { waitFor } from '../support/wait.js';
import { memoryClient, memoryCloudLink } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

const FLOOD = 200;
const lines = (log: { lines: string[] }, text: string): string[] => log.lines.filter((l) => l.includes(text));

/**
 * A flood of one kind of bad input costs a log line per interval, not one per message, while
 * the counters stay exact: refusals() itself, the broker's and the join paths' refusals, and
 * the hub's and the edge's one-WARN-per-malformed-message.
 */
describe('refusals and malformed messages are logged with sampling', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('refusals(): the first of a reason at once, then one line per interval saying how many more', async () => {
    const clock = new FakeClock();
    const counters = new Counters();
    const log = memoryLogger();
    const refuse = refusals(counters, 'test_refused_total', log, 'refused', { clock });
    for (let i = 0; i < 1000; i++) refuse('flood', `attempt ${i}`);
    refuse('other', 'another reason');
    expect(counters.get('test_refused_total', { reason: 'flood' })).toBe(1000);
    expect(log.lines).toHaveLength(2);
    expect(log.lines[0]).toContain('refused: attempt 0');
    expect(log.lines[1]).toContain('refused: another reason');

    await clock.advance(LOG_SAMPLE_INTERVAL_MS - 1);
    refuse('flood', 'attempt 1000');
    expect(log.lines).toHaveLength(2);
    await clock.advance(1);
    refuse('flood', 'attempt 1001');
    expect(log.lines).toHaveLength(3);
    expect(log.lines[2]).toContain('refused: attempt 1001');
    expect(log.lines[2]).toContain('"moreSinceLastLine":1000');
    expect(counters.get('test_refused_total', { reason: 'flood' })).toBe(1002);
  });

  it('the broker: a flood of bad passwords', async () => {
    const clock = new FakeClock();
    const counters = new Counters();
    const log = memoryLogger('broker');
    const broker = await startBroker({ port: 0, authenticate: () => false, logger: log, counters, clock });
    cleanups.push(() => broker.close());
    for (let i = 0; i < 20; i++) {
      await expect(connectAsync(broker.url, { clientId: 'edge-1', username: 'edge-1', password: 'wrong', protocolVersion: 4, reconnectPeriod: 0 })).rejects.toThrow(/Bad username or password/);
    }
    expect(counters.get(REFUSED, { reason: 'bad-credentials' })).toBe(20);
    expect(lines(log, 'broker refused a client')).toHaveLength(1);
    // aedes reports each refused CONNECT as a client error too: sampled as well.
    await waitFor(() => lines(log, 'broker client error').length > 0, 'the client error of the first refusal');
    expect(lines(log, 'broker client error')).toHaveLength(1);
  });

  it('the join path: a flood of joins without a token', async () => {
    const clock = new FakeClock();
    const counters = new Counters();
    const log = memoryLogger('cloud');
    const join = joinHandler({ api: new FakeApiClient(), clock, logger: log, counters, caPem: 'CA', brokerUrlFor: () => 'mqtt://127.0.0.1:1883' });
    const attempt = (): Promise<unknown> => join({ method: 'POST', path: JOIN_PATH, query: new URLSearchParams(), headers: {} }, JOIN_PATH)!;
    for (let i = 0; i < FLOOD; i++) await expect(attempt()).rejects.toThrow(/a join needs a join token/);
    expect(counters.get(JOIN_REFUSED, { reason: 'bad-token' })).toBe(FLOOD);
    expect(lines(log, 'refused a join')).toHaveLength(1);
    await clock.advance(LOG_SAMPLE_INTERVAL_MS);
    await expect(attempt()).rejects.toThrow(/a join needs a join token/);
    expect(lines(log, 'refused a join')[1]).toContain(`"moreSinceLastLine":${FLOOD - 1}`);
  });

  /** A MemoryBroker on `clock` that admits the cloud with `cloud-secret` and nodes with `node-secret`. */
  const memoryBroker = (clock: FakeClock): MemoryBroker => {
    const broker = new MemoryBroker({ clock, authenticate: (u, p) => (u === 'kedge-cloud' ? p === 'cloud-secret' : p === 'node-secret') });
    cleanups.push(async () => broker.stop());
    return broker;
  };
  /** A started client of `broker` that subscribes to nothing, connected. */
  const rawClient = async (clock: FakeClock, transport: Transport): Promise<Transport> => {
    cleanups.push(() => transport.close());
    transport.start({ subscriptions: [] });
    await runUntil(clock, () => transport.connectivity.connected, 'a raw client connected');
    return transport;
  };

  it("the cloud hub: a flood of malformed payloads on a node's up topic", async () => {
    const clock = new FakeClock();
    const log = memoryLogger('cloud');
    const broker = memoryBroker(clock);
    const hub = await startCloudHub({ api: new FakeApiClient(), apiAsNode: () => new FakeApiClient(), ...memoryCloudLink(broker, clock, { logger: log }), clock, timing: defaultTiming, logger: log });
    cleanups.push(() => hub.close());
    const node = await rawClient(clock, memoryClient(broker, clock, { clientId: 'edge-1', username: 'edge-1', password: 'node-secret' }));
    await floodOf(node, topics.up('edge-1'));
    await runUntil(clock, () => hub.stats().malformed === FLOOD, 'every payload counted', { budgetMs: LOG_SAMPLE_INTERVAL_MS - 1 });
    expect(lines(log, 'dropped malformed message')).toHaveLength(1);
    await clock.advance(LOG_SAMPLE_INTERVAL_MS);
    await node.publish(topics.up('edge-1'), Buffer.from('not json'));
    await runUntil(clock, () => hub.stats().malformed === FLOOD + 1, 'one more counted');
    expect(lines(log, 'dropped malformed message')[1]).toContain(`"moreSinceLastLine":${FLOOD - 1}`);
    expect(hub.brokerLink().up).toBe(true);
  });

  it("the edge hub: a flood of malformed payloads on its down topic", async () => {
    const clock = new FakeClock();
    const log = memoryLogger('edge');
    const broker = memoryBroker(clock);
    const edge = new EdgeHub({ nodeName: 'edge-1', transport: memoryClient(broker, clock, { clientId: 'edge-1', username: 'edge-1', password: 'node-secret' }, { logger: log }), epoch: 'e1', bootId: 'b1', clock, logger: log, holds: () => [] });
    const inbound = edge.inbound$.subscribe();
    cleanups.push(async () => {
      inbound.unsubscribe();
      await edge.stop();
    });
    edge.start();
    await runUntil(clock, () => edge.connectivity.connected, 'edge connected');
    const cloud = await rawClient(clock, memoryCloudLink(broker, clock).transport);
    await floodOf(cloud, topics.down('edge-1'));
    await runUntil(clock, () => edge.malformed === FLOOD, 'every payload counted', { budgetMs: LOG_SAMPLE_INTERVAL_MS - 1 });
    expect(lines(log, 'dropped a malformed message')).toHaveLength(1);
  });
});

async function floodOf(client: Transport, topic: string): Promise<void> {
  await Promise.all(Array.from({ length: FLOOD }, (_, i) => client.publish(topic, Buffer.from(`not json ${i}`))));
}
