import { expect, it } from 'vitest';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport } from '../../shared/transport.js';
import { CONNECT_WITHIN_MS, QUIET_MS, RECONNECT_MAX_MS, type TransportHarness } from './transport-contract-kit.js';

const text = (s: string): Buffer => Buffer.from(s);

/** Every connectivity change of `transport` from now on. */
function history(transport: Transport): boolean[] {
  const seen: boolean[] = [];
  transport.connectivity$.subscribe((c) => seen.push(c.connected));
  return seen;
}

/** The embedded broker's ACL: a node speaks and listens only on its own topics. */
export function aclCases(h: () => TransportHarness): void {
  it("drops a node that publishes to another node's up topic, and delivers nothing", async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: ['kedge/v1/#'] });
    const atCloud = h().collect(cloud);
    const edge = await h().node('edge-1');
    const seen = history(edge);
    await h().connected(edge, { subscriptions: [] });
    await expect(edge.publish(topics.up('edge-2'), text('forged'))).rejects.toThrow();
    await h().broker.until(() => seen.length === 4, 'dropped, then back', CONNECT_WITHIN_MS);
    expect(seen).toEqual([false, true, false, true]);
    await h().broker.pass(QUIET_MS);
    expect(atCloud).toEqual([]);
  });

  it("carries a node's own stream topics both ways, and drops a node that publishes to another node's stream-up", async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allStreamUp] });
    const atCloud = h().collect(cloud);
    const edge = await h().node('edge-1');
    const atEdge = h().collect(edge);
    const seen = history(edge);
    await h().connected(edge, { subscriptions: [topics.streamDown('edge-1')] });
    await edge.publish(topics.streamUp('edge-1'), text('frame up'));
    await cloud.publish(topics.streamDown('edge-1'), text('frame down'));
    await h().broker.until(() => atCloud.length === 1 && atEdge.length === 1, 'both frames', CONNECT_WITHIN_MS);
    await expect(edge.publish(topics.streamUp('edge-2'), text('forged'))).rejects.toThrow();
    await h().broker.until(() => seen.length === 4, 'dropped, then back', CONNECT_WITHIN_MS);
    await h().broker.pass(QUIET_MS);
    expect(atCloud.map((m) => [m.topic, m.payload])).toEqual([[topics.streamUp('edge-1'), 'frame up']]);
    expect(atEdge.map((m) => [m.topic, m.payload])).toEqual([[topics.streamDown('edge-1'), 'frame down']]);
  });

  it('lets a node retain nothing but its presence', async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [topics.allUp] });
    const atCloud = h().collect(cloud);
    const edge = await h().connected(await h().node('edge-1'), { subscriptions: [] });
    await expect(edge.retain({ topic: topics.up('edge-1'), payload: text('sticky') })).rejects.toThrow();
    const later = await h().cloud({ clientId: 'kedge-cloud-2' });
    const atLater = h().collect(later);
    await h().connected(later, { subscriptions: [topics.allUp] });
    await h().broker.pass(QUIET_MS);
    expect([atCloud, atLater]).toEqual([[], []]);
  });

  it("gives no session to a node subscribing to another node's down topic, to wildcards or to up topics", async () => {
    const cloud = await h().connected(await h().cloud(), { subscriptions: [] });
    for (const filter of [topics.down('edge-2'), 'kedge/v1/+/down', 'kedge/v1/#', topics.up('edge-1')]) {
      const edge = await h().node('edge-1');
      const seen = history(edge);
      const atEdge = h().collect(edge);
      edge.start({ subscriptions: [filter] });
      await h().broker.pass(QUIET_MS);
      await cloud.publish(topics.down('edge-2'), text('not for edge-1'));
      await h().broker.pass(2 * RECONNECT_MAX_MS);
      expect([filter, seen, atEdge]).toEqual([filter, [false], []]);
      await edge.close();
    }
  });

  it('refuses a wrong password, and a client id that is not its own, and they keep trying', async () => {
    const wrongPassword = await h().node('edge-1', { password: 'wrong' });
    const othersId = await h().node('edge-1', { clientId: 'edge-2' });
    const cloudsId = await h().node('edge-1', { clientId: 'kedge-cloud-9' });
    const seen = [wrongPassword, othersId, cloudsId].map(history);
    for (const t of [wrongPassword, othersId, cloudsId]) t.start({ subscriptions: [] });
    await h().broker.pass(CONNECT_WITHIN_MS);
    expect(seen).toEqual([[false], [false], [false]]);
    expect(h().attempts.filter((a) => a.username === 'edge-1').length).toBeGreaterThan(3);
  });

  it('tries a refused credential again slowly: after 30 times its longest backoff', async () => {
    const maxMs = 50;
    const refused = await h().node('edge-1', { password: 'wrong', reconnectMinMs: 20, reconnectMaxMs: maxMs });
    const tries = (): number[] => h().attempts.filter((a) => a.username === 'edge-1').map((a) => a.at);
    refused.start({ subscriptions: [] });
    await h().broker.until(() => tries().length === 2, 'a second try', 30 * maxMs + CONNECT_WITHIN_MS);
    const [first, second] = tries();
    expect(second! - first!).toBeGreaterThanOrEqual(30 * maxMs);
    expect(refused.connectivity.connected).toBe(false);
  });
}
