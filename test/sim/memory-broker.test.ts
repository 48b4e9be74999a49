import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { topics } from '../../shared/protocol/topics.js';
import { ClientKeepalive } from '../../sim/memory-broker/client-keepalive.js';
import { matchesFilter } from '../../sim/memory-broker/topic-filter.js';
import { memoryWorld, type MemoryWorld } from './memory-broker-fixture.js';

const presence = topics.presence('edge-1');
const said = (payload: string) => (session: { retain(m: { topic: string; payload: Buffer }): Promise<void> }) => session.retain({ topic: presence, payload: Buffer.from(payload) });

describe('MemoryBroker: sessions and lifecycle', () => {
  let world: MemoryWorld;
  afterEach(async () => {
    await world.close();
    expect(world.clock.pending).toBe(0); // every timer released
  });

  it('stop drops every client without its will and forgets retained messages; after start they come back by their backoff', async () => {
    world = memoryWorld();
    const { cloud, heard: atCloud } = world.listeningCloud();
    const edge = world.client('edge-1');
    edge.start({ subscriptions: [], will: { topic: presence, payload: Buffer.from('offline') }, onSession: said('online') });
    await world.until(() => atCloud.length === 1, 'online');
    expect(world.broker.retainedMessages()).toEqual([{ topic: presence, payload: Buffer.from('online') }]);
    world.broker.stop();
    await world.clock.advance(0);
    expect([cloud.connectivity.connected, edge.connectivity.connected, world.broker.isRunning]).toEqual([false, false, false]);
    expect([world.broker.clientIds(), world.broker.retainedMessages()]).toEqual([[], []]);
    const checked = world.checked.length;
    await world.clock.advance(3000);
    expect(world.checked.length).toBe(checked); // refused before any CONNECT, as by a closed port
    world.broker.start();
    await world.until(() => edge.connectivity.connected && cloud.connectivity.connected, 'both back', 1000);
    expect(atCloud).toEqual(['online', 'online']); // said again by the edge's new session, never 'offline'
    world.broker.restart();
    await world.until(() => edge.connectivity.connected && cloud.connectivity.connected, 'both back again', 1000);
  });

  it('a second connection with the same client id takes the session over, and the first one\'s will goes out', async () => {
    world = memoryWorld();
    const { heard: atCloud } = world.listeningCloud();
    const first = world.client('edge-1');
    first.start({ subscriptions: [], will: { topic: presence, payload: Buffer.from('first gone') }, onSession: said('first') });
    await world.until(() => first.connectivity.connected, 'the first');
    const second = world.client('edge-1');
    second.start({ subscriptions: [], onSession: said('second') });
    await world.until(() => second.connectivity.connected, 'the second');
    expect(first.connectivity.connected).toBe(false);
    await first.close();
    await world.clock.advance(0);
    expect(atCloud).toEqual(['first', 'first gone', 'second']);
    expect(world.broker.clientIds()).toEqual(['kedge-cloud-1', 'edge-1']);
  });

  it('with nodesWaitForCloud, nodes are refused until a cloud listens to every up topic, and dropped when it goes', async () => {
    world = memoryWorld({ nodesWaitForCloud: true });
    const edge = world.client('edge-1');
    edge.start({ subscriptions: [] });
    await world.clock.advance(2000);
    expect([edge.connectivity.connected, world.checked.filter((u) => u === 'edge-1').length > 2]).toEqual([false, true]);
    const cloud = world.cloud();
    cloud.start({ subscriptions: [topics.allUp] });
    await world.until(() => edge.connectivity.connected, 'edge-1 admitted');
    await cloud.close();
    await world.clock.advance(0);
    expect(edge.connectivity.connected).toBe(false);
  });

  it('refuses a keepalive longer than ten minutes, as the embedded broker does', async () => {
    world = memoryWorld();
    const edge = world.client('edge-1', 'edge-1', { keepaliveMs: 601_000 });
    edge.start({ subscriptions: [] });
    await world.clock.advance(3000);
    expect([edge.connectivity.connected, world.broker.clientIds()]).toEqual([false, []]);
  });

  it('lets the cloud subscribe with wildcards and hands it every node', async () => {
    world = memoryWorld();
    const { heard: atCloud } = world.listeningCloud(['kedge/v1/#']);
    for (const node of ['edge-1', 'edge-2']) world.client(node).start({ subscriptions: [], onSession: (s) => s.publish(topics.up(node), Buffer.from(node)) });
    await world.until(() => atCloud.length === 2, 'both nodes');
    expect(atCloud.sort()).toEqual(['edge-1', 'edge-2']);
  });
});

describe('MemoryBroker parts', () => {
  it.each([
    ['kedge/v1/+/up', 'kedge/v1/edge-1/up', true],
    ['kedge/v1/+/up', 'kedge/v1/edge-1/down', false],
    ['kedge/v1/+/up', 'kedge/v1/edge-1/up/x', false],
    ['kedge/v1/#', 'kedge/v1/edge-1/up', true],
    ['kedge/v1/#', 'kedge/v1', true],
    ['kedge/v1/edge-1/down', 'kedge/v1/edge-1/down', true],
    ['kedge/v1/edge-1/down', 'kedge/v1/edge-2/down', false],
  ] as const)('filter %s matches %s: %s', (filter, topic, expected) => expect(matchesFilter(filter, topic)).toBe(expected));

  it("keeps mqtt.js' keepalive rule: a ping after one keepalive of no answer, giving up at one and a half", async () => {
    const clock = new FakeClock();
    const events: string[] = [];
    const keepalive = new ClientKeepalive(clock, 1000, () => events.push(`ping ${clock.now() % 10_000}`), () => events.push(`gone ${clock.now() % 10_000}`));
    await clock.advance(1000);
    keepalive.answered();
    await clock.advance(3000);
    expect(events).toEqual(['ping 1000', 'ping 2000', 'gone 2500']);
    expect(clock.pending).toBe(0);
  });
});
