import { expect, it } from 'vitest';
import { topics } from '../../shared/protocol/topics.js';
import type { Connectivity, Transport } from '../../shared/transport.js';
import { CONNECT_WITHIN_MS, QUIET_MS, RECONNECT_MAX_MS, watch, type Seen, type TransportHarness } from './transport-contract-kit.js';

const text = (s: string): Buffer => Buffer.from(s);
const range = (n: number): number[] => [...Array(n).keys()];

/** What a new cloud client subscribing to every presence receives in its first moments. */
async function seenBy(h: () => TransportHarness, clientId: string): Promise<Seen[]> {
  const cloud = await h().cloud({ clientId });
  const seen = h().collect(cloud);
  await h().connected(cloud, { subscriptions: [topics.allPresence] });
  await h().broker.pass(QUIET_MS);
  return seen;
}

/** A cloud watching every presence, and edge-1 connected: "offline" its will, "online" said on every session. */
async function presentEdge(h: () => TransportHarness): Promise<{ atCloud: Seen[]; edge: Transport; presence: string }> {
  const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allPresence] });
  const atCloud = h().collect(cloud);
  const presence = topics.presence('edge-1');
  const edge = await h().node('edge-1');
  await h().connected(edge, { subscriptions: [], will: { topic: presence, payload: text('offline') }, onSession: (s) => s.retain({ topic: presence, payload: text('online') }) });
  await h().broker.until(() => atCloud.length === 1, 'online', QUIET_MS);
  return { atCloud, edge, presence };
}

/** Sessions, QoS 1 delivery, retained messages, wills and close. */
export function sessionCases(h: () => TransportHarness): void {
  it('connects, says since when, and has heard the broker', async () => {
    const edge = await h().node('edge-1');
    const seen: Connectivity[] = [];
    edge.connectivity$.subscribe((c) => seen.push(c));
    const before = h().broker.now();
    expect([edge.connectivity.connected, edge.lastHeard]).toEqual([false, undefined]);
    await h().connected(edge, { subscriptions: [topics.down('edge-1')] });
    expect(seen.map((c) => c.connected)).toEqual([false, true]);
    expect(edge.connectivity.since).toBeGreaterThanOrEqual(before);
    expect(edge.connectivity.since).toBeLessThanOrEqual(h().broker.now());
    expect(edge.lastHeard).toBeGreaterThanOrEqual(before);
  });

  it('delivers QoS 1 both ways, in the order each sender published', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp] });
    const edge = await h().connected(await h().node('edge-1'), { subscriptions: [topics.down('edge-1')] });
    const [atCloud, atEdge] = [h().collect(cloud), h().collect(edge)];
    await Promise.all(range(20).map((i) => edge.publish(topics.up('edge-1'), text(`u${i}`))));
    await Promise.all(range(20).map((i) => cloud.publish(topics.down('edge-1'), text(`d${i}`))));
    await h().broker.until(() => atCloud.length === 20 && atEdge.length === 20, 'every message', QUIET_MS);
    expect(atCloud).toEqual(range(20).map((i) => ({ topic: topics.up('edge-1'), payload: `u${i}`, retained: false })));
    expect(atEdge).toEqual(range(20).map((i) => ({ topic: topics.down('edge-1'), payload: `d${i}`, retained: false })));
  });

  it('resolves a publish once the broker acknowledges it, never inside the call', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp] });
    const edge = await h().connected(await h().node('edge-1'), { subscriptions: [] });
    const atCloud = h().collect(cloud);
    const publish = edge.publish(topics.up('edge-1'), text('hi'));
    const acked = watch(publish);
    expect([acked.state, atCloud]).toEqual(['pending', []]);
    await publish;
    await h().broker.until(() => atCloud.length === 1, 'the message', QUIET_MS);
  });

  it('rejects a publish without a session: before start, while refused, after close', async () => {
    const early = await h().node('edge-1');
    await expect(early.publish(topics.up('edge-1'), text('x'))).rejects.toThrow();
    const refused = await h().node('edge-2', { password: 'wrong' });
    refused.start({ subscriptions: [] });
    await h().broker.pass(QUIET_MS);
    await expect(refused.publish(topics.up('edge-2'), text('x'))).rejects.toThrow();
    await expect(refused.retain({ topic: topics.presence('edge-2'), payload: text('x') })).rejects.toThrow();
    await h().connected(early, { subscriptions: [] });
    await early.close();
    await expect(early.publish(topics.up('edge-1'), text('x'))).rejects.toThrow();
  });

  it('hands a retained presence to a later subscriber, flagged, and forgets it on an empty payload', async () => {
    const presence = topics.presence('edge-1');
    const live = await h().connected(await h().cloud(), { subscriptions: [topics.allPresence] });
    const atLive = h().collect(live);
    const edge = await h().connected(await h().node('edge-1'), { subscriptions: [] });
    await edge.retain({ topic: presence, payload: text('online') });
    await h().broker.until(() => atLive.length === 1, 'the live message', QUIET_MS);
    expect(await seenBy(h, 'kedge-cloud-2')).toEqual([{ topic: presence, payload: 'online', retained: true }]);
    await edge.retain({ topic: presence, payload: Buffer.alloc(0) });
    await h().broker.until(() => atLive.length === 2, 'the empty one, live', QUIET_MS);
    expect(atLive).toEqual([
      { topic: presence, payload: 'online', retained: false },
      { topic: presence, payload: '', retained: false },
    ]);
    expect(await seenBy(h, 'kedge-cloud-3')).toEqual([]);
  });

  it('leaves the will when the connection is reset, and says online again on the next session', async () => {
    const { atCloud } = await presentEdge(h);
    await h().broker.reset('edge-1');
    await h().broker.until(() => atCloud.some((m) => m.payload === 'offline'), 'the will', QUIET_MS);
    await h().broker.until(() => atCloud.filter((m) => m.payload === 'online').length === 2, 'the next session', CONNECT_WITHIN_MS);
    expect(atCloud.map((m) => m.payload)).toEqual(['online', 'offline', 'online']);
  });

  it('close says the farewell at most once; the will may follow it, or stand in for it, and nothing else', async () => {
    const { atCloud, edge, presence } = await presentEdge(h);
    await edge.close({ topic: presence, payload: text('bye') });
    await h().broker.until(() => atCloud.length > 1, 'the farewell or the will', QUIET_MS);
    await h().broker.pass(QUIET_MS);
    const said = atCloud.slice(1).map((m) => m.payload);
    expect([['bye'], ['offline'], ['bye', 'offline']]).toContainEqual(said);
    // What a later subscriber is handed is what was said last.
    expect(await seenBy(h, 'kedge-cloud-2')).toEqual([{ topic: presence, payload: said.at(-1), retained: true }]);
  });

  it('runs onSession on every session, subscribed and before it counts as connected; a rejection retries', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [] });
    const edge = await h().node('edge-1');
    const atEdge = h().collect(edge);
    const calls: boolean[] = [];
    await h().connected(edge, {
      subscriptions: [topics.down('edge-1')],
      onSession: async () => {
        calls.push(edge.connectivity.connected);
        if (calls.length === 1) throw new Error('not this time');
      },
    });
    expect(calls).toEqual([false, false]);
    await h().broker.reset('edge-1');
    await h().broker.until(() => calls.length === 3 && edge.connectivity.connected, 'a third session', CONNECT_WITHIN_MS);
    await cloud.publish(topics.down('edge-1'), text('still subscribed'));
    await h().broker.until(() => atEdge.length === 1, 'the message', QUIET_MS);
  });

  it('close completes inbound$ and connectivity$, and connects no more', async () => {
    const edge = await h().connected(await h().node('edge-1'), { subscriptions: [topics.down('edge-1')] });
    const completed: string[] = [];
    edge.inbound$.subscribe({ complete: () => completed.push('inbound$') });
    edge.connectivity$.subscribe({ complete: () => completed.push('connectivity$') });
    const tries = h().attempts.length;
    await edge.close();
    expect(completed.sort()).toEqual(['connectivity$', 'inbound$']);
    expect(edge.connectivity.connected).toBe(false);
    await edge.close(); // idempotent
    await h().broker.pass(2 * RECONNECT_MAX_MS);
    expect(h().attempts.length).toBe(tries);
  });
}
