import { afterEach, describe, expect, it } from 'vitest';
import { topics } from '../../shared/protocol/topics.js';
import type { SessionSpec } from '../../shared/transport.js';
import { memoryWorld, type MemoryWorld } from './memory-broker-fixture.js';

const presence = topics.presence('edge-1');
const edgeSpec: SessionSpec = {
  subscriptions: [topics.down('edge-1')],
  will: { topic: presence, payload: Buffer.from('offline') },
  onSession: (session) => session.retain({ topic: presence, payload: Buffer.from('online') }),
};

describe('MemoryBroker: cut, heal and reset', () => {
  let world: MemoryWorld;
  afterEach(async () => {
    await world.close();
    expect(world.clock.pending).toBe(0); // every timer released
  });

  /** A cloud watching presence, and edge-1 connected and said online. */
  async function connectedPair() {
    world = memoryWorld();
    const { cloud, heard: atCloud } = world.listeningCloud();
    const edge = world.client('edge-1');
    edge.start(edgeSpec);
    await world.until(() => edge.connectivity.connected && atCloud.length === 1, 'edge-1 online');
    return { cloud, atCloud, edge };
  }

  it('notices a silent client as aedes and mqtt.js do: 1.5 keepalives after the last word either way', async () => {
    const { atCloud, edge } = await connectedPair();
    world.broker.cut('edge-1');
    // The last words: the edge's retained presence, and the broker's PUBACK for it.
    await world.clock.advance(edge.lastHeard! + 1499 - world.clock.now());
    expect([edge.connectivity.connected, world.broker.clientIds()]).toEqual([true, ['kedge-cloud-1', 'edge-1']]);
    await world.clock.advance(1);
    expect(edge.connectivity.connected).toBe(false); // the client: no answer to its ping
    expect(atCloud).toEqual(['online']);
    await world.clock.advance(1);
    expect([world.broker.clientIds(), atCloud]).toEqual([['kedge-cloud-1'], ['online', 'offline']]); // the broker, a millisecond later
  });

  it('connections made during a cut reach no broker; heal resets them and the client comes back', async () => {
    const { edge } = await connectedPair();
    const checked = world.checked.length;
    world.broker.cut('edge-1');
    await world.clock.advance(5000);
    expect([edge.connectivity.connected, world.broker.isCut('edge-1'), world.checked.length]).toEqual([false, true, checked]);
    expect(world.broker.connections('edge-1')).toBe(1); // the attempt in the blackhole, waiting for its CONNACK
    world.broker.heal('edge-1');
    await world.until(() => edge.connectivity.connected, 'back after heal');
    expect([world.broker.isCut('edge-1'), world.broker.connections('edge-1'), world.broker.clientIds()]).toEqual([false, 1, ['kedge-cloud-1', 'edge-1']]);
  });

  it('a client closing during a cut: its farewell never arrives, heal resets the broker end, and the will goes out', async () => {
    const { atCloud, edge } = await connectedPair();
    world.broker.cut('edge-1');
    await edge.close({ topic: presence, payload: Buffer.from('bye') });
    await world.clock.advance(100);
    expect(atCloud).toEqual(['online']);
    world.broker.heal('edge-1');
    await world.clock.advance(0);
    expect([atCloud, world.broker.connections('edge-1')]).toEqual([['online', 'offline'], 0]);
  });

  it('reset drops both ends at once, even during a cut', async () => {
    const { atCloud, edge } = await connectedPair();
    world.broker.cut('edge-1');
    world.broker.reset('edge-1');
    await world.clock.advance(0);
    expect([edge.connectivity.connected, atCloud, world.broker.isCut('edge-1')]).toEqual([false, ['online', 'offline'], true]);
    await world.clock.advance(2000);
    expect(edge.connectivity.connected).toBe(false); // its next attempts wait in the blackhole
    world.broker.heal('edge-1');
    await world.until(() => edge.connectivity.connected, 'back after heal');
  });

  it('a node that does not take what waits for it is cut off past its bound; the hub never is', async () => {
    world = memoryWorld({ maxQueuedBytes: 1000 });
    const { cloud, heard: atCloud } = world.listeningCloud([topics.allUp, topics.allPresence]);
    const edge = world.client('edge-1');
    edge.start(edgeSpec);
    await world.until(() => edge.connectivity.connected && cloud.connectivity.connected, 'both connected');
    world.broker.cut('edge-1');
    for (let i = 0; i < 2; i++) await cloud.publish(topics.down('edge-1'), Buffer.alloc(400));
    expect(world.broker.clientIds()).toContain('edge-1');
    await cloud.publish(topics.down('edge-1'), Buffer.alloc(400));
    await world.clock.advance(0);
    expect([world.broker.clientIds(), atCloud]).toEqual([['kedge-cloud-1'], ['online', 'offline']]);
    world.broker.heal('edge-1');
    await world.until(() => atCloud.length === 3 && edge.connectivity.connected, 'edge-1 back');
    world.broker.cut('kedge-cloud-1');
    for (let i = 0; i < 5; i++) await edge.publish(topics.up('edge-1'), Buffer.alloc(400));
    expect(world.broker.clientIds()).toEqual(['kedge-cloud-1', 'edge-1']);
  });
});
