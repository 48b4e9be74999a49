import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const ref = { resource: 'pods', namespace: 'default', name: 'crashy' };
const crashy: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'crashy', annotations: { 'kedge.io/crash-after': '1s' } },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'busybox:1.36' }] },
};

/** [SYNC-21] The edge's Events go up as `event` messages and leave its outbox once acked, also after a night offline. */
describe('edge Events reach the cloud', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('are sent and acked online; those recorded offline wait, then drain after reconnect', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    const edge = c.edge('edge-1');
    await c.api.create(ref, crashy);
    await runUntil(c.clock, async () => (await c.api.get<Pod>(ref)).status?.phase === 'Running', 'crashy Running');
    await runUntil(c.clock, () => edge.events.entries().length === 0, 'the first events acked');

    const cutAt = c.clock.now();
    c.cut('edge-1');
    await runUntil(c.clock, () => !edge.hub.connectivity.connected, 'the edge to notice', { budgetMs: 10 * c.timing.keepaliveMs });
    await runUntil(c.clock, () => edge.events.entries().some((e) => e.event.reason === 'BackOff' && e.event.count >= 3), 'back-offs recorded offline', { budgetMs: 30 * 60_000 });
    const pending = edge.events.entries().map((e) => e.event);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((e) => Date.parse(e.lastTimestamp) >= cutAt - 1000)).toBe(true); // recorded offline, at their own time

    c.heal('edge-1');
    await runUntil(c.clock, () => edge.events.entries().every((e) => !pending.some((p) => p.name === e.event.name && p.count === e.event.count)), 'the offline events delivered', { budgetMs: 5 * 60_000 });
  });
});
