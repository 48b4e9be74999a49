import { expect, it } from 'vitest';
import { topics } from '../../shared/protocol/topics.js';
import type { SessionSpec } from '../../shared/transport.js';
import { CONNECT_WITHIN_MS, KEEPALIVE_MS, QUIET_MS, RECONNECT_MAX_MS, RECONNECT_MIN_MS, watch, type TransportHarness } from './transport-contract-kit.js';

const text = (s: string): Buffer => Buffer.from(s);
const presence = topics.presence('edge-1');
/** An edge's sessions: its down topic, "offline" as its will, "online" said on every session. */
const edgeSpec: SessionSpec = {
  subscriptions: [topics.down('edge-1')],
  will: { topic: presence, payload: text('offline') },
  onSession: (session) => session.retain({ topic: presence, payload: text('online') }),
};

/** A pulled cable, a reset connection, and how a client comes back. */
export function linkCases(h: () => TransportHarness): void {
  it('a cut: nothing passes either way, each end notices by its keepalive, and heal brings the session back', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp, topics.allPresence] });
    const atCloud = h().collect(cloud);
    const edge = await h().node('edge-1');
    const atEdge = h().collect(edge);
    await h().connected(edge, edgeSpec);
    await h().broker.until(() => atCloud.length === 1, 'online', QUIET_MS);
    await h().broker.cut('edge-1');
    const cutAt = h().broker.now();
    await cloud.publish(topics.down('edge-1'), text('during the cut')); // the cloud's own link is fine
    await h().broker.pass(KEEPALIVE_MS / 4);
    expect([edge.connectivity.connected, atCloud.map((m) => m.payload)]).toEqual([true, ['online']]);
    await h().broker.until(() => !edge.connectivity.connected && atCloud.length === 2, 'both ends notice', 2 * KEEPALIVE_MS - KEEPALIVE_MS / 4);
    expect(edge.connectivity.since - cutAt).toBeLessThanOrEqual(2 * KEEPALIVE_MS);
    expect(atCloud.map((m) => m.payload)).toEqual(['online', 'offline']);
    await h().broker.heal('edge-1');
    await h().broker.until(() => edge.connectivity.connected && atCloud.length === 3, 'a new session', CONNECT_WITHIN_MS);
    await cloud.publish(topics.down('edge-1'), text('after heal'));
    await h().broker.until(() => atEdge.length === 1, 'the message after heal', QUIET_MS);
    await h().broker.pass(QUIET_MS);
    expect(atEdge.map((m) => m.payload)).toEqual(['after heal']);
  });

  it('a publish in flight across a cut is never acknowledged; after heal the sender publishes again and it arrives once', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp] });
    const atCloud = h().collect(cloud);
    const edge = await h().connected(await h().node('edge-1'), edgeSpec);
    await h().broker.cut('edge-1');
    const inFlight = edge.publish(topics.up('edge-1'), text('in flight'));
    const settled = watch(inFlight);
    await h().broker.until(() => !edge.connectivity.connected, 'the edge notices', 2 * KEEPALIVE_MS);
    await expect(inFlight).rejects.toThrow();
    await h().broker.heal('edge-1');
    await h().broker.until(() => edge.connectivity.connected, 'a new session', CONNECT_WITHIN_MS);
    await edge.publish(topics.up('edge-1'), text('again'));
    await h().broker.until(() => atCloud.length === 1, 'the message', QUIET_MS);
    await h().broker.pass(QUIET_MS);
    expect([settled.state, atCloud.map((m) => m.payload)]).toEqual(['rejected', ['again']]);
  });

  it('a cut shorter than a keepalive loses nothing: what waited arrives on heal', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp] });
    const atCloud = h().collect(cloud);
    const edge = await h().connected(await h().node('edge-1'), edgeSpec);
    const atEdge = h().collect(edge);
    await h().broker.cut('edge-1');
    const up = edge.publish(topics.up('edge-1'), text('up'));
    const acked = watch(up);
    await cloud.publish(topics.down('edge-1'), text('down'));
    await h().broker.pass(KEEPALIVE_MS / 4);
    expect([acked.state, atCloud, atEdge]).toEqual(['pending', [], []]);
    await h().broker.heal('edge-1');
    await up;
    await h().broker.until(() => atCloud.length === 1 && atEdge.length === 1, 'both messages', QUIET_MS);
    expect(edge.connectivity.connected).toBe(true);
  });

  it('reset drops the connection at once at both ends; the client comes back no sooner than its backoff', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allPresence] });
    const atCloud = h().collect(cloud);
    const edge = await h().connected(await h().node('edge-1', { random: () => 1 }), edgeSpec);
    await h().broker.until(() => atCloud.length === 1, 'online', QUIET_MS);
    await h().broker.reset('edge-1');
    await h().broker.until(() => !edge.connectivity.connected && atCloud.length === 2, 'both ends see the reset', QUIET_MS);
    const lostAt = edge.connectivity.since;
    await h().broker.until(() => edge.connectivity.connected, 'a new session', CONNECT_WITHIN_MS);
    expect(edge.connectivity.since - lostAt).toBeGreaterThanOrEqual(RECONNECT_MIN_MS);
    expect(atCloud.map((m) => m.payload)).toEqual(['online', 'offline', 'online']);
  });

  it('backs off between failed sessions, doubling up to the cap', async () => {
    const edge = await h().node('edge-1', { random: () => 1 }); // the top of each jitter window
    edge.start({ subscriptions: [], onSession: () => Promise.reject(new Error('not today')) });
    await h().broker.pass(RECONNECT_MIN_MS + 2 * RECONNECT_MIN_MS + 2 * RECONNECT_MAX_MS + QUIET_MS);
    const at = h().attempts.filter((a) => a.username === 'edge-1').map((a) => a.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    gaps.slice(0, 4).forEach((gap, i) => {
      const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** i);
      expect(gap).toBeGreaterThanOrEqual(ceiling);
      expect(gap).toBeLessThan(ceiling + RECONNECT_MIN_MS);
    });
    expect(edge.connectivity.connected).toBe(false);
  });
}
