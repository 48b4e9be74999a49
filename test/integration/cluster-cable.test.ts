import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const connected = (c: Cluster<FakeClock>, node: string): boolean => c.edge(node).hub.connectivity.connected;
const atHub = (c: Cluster<FakeClock>, node: string): boolean => c.cloud.hub.connectedNodes().includes(node);

/** A cluster over the in-memory broker: a node's cable, an edge's restart and the broker's, all on fake time. */
describe('Cluster over the in-memory broker', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  async function started(): Promise<Cluster<FakeClock>> {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 2_000 } }));
    await runUntil(c.clock, () => atHub(c, 'edge-1') && atHub(c, 'edge-2'), 'both nodes at the hub');
    return c;
  }

  it('cut: each end notices by its keepalive, the other node stays; heal: the node is back', async () => {
    const c = await started();
    c.cut('edge-1');
    await pass(c.clock, 1_000, 1_000);
    expect([connected(c, 'edge-1'), atHub(c, 'edge-1')]).toEqual([true, true]);
    await runUntil(c.clock, () => !connected(c, 'edge-1') && !atHub(c, 'edge-1'), 'both ends notice', { budgetMs: 2 * c.timing.keepaliveMs });
    expect(atHub(c, 'edge-2')).toBe(true);
    c.heal('edge-1');
    await runUntil(c.clock, () => connected(c, 'edge-1') && atHub(c, 'edge-1'), 'edge-1 back', { budgetMs: 2 * c.timing.reconnectMaxMs });
  });

  it('reset: both ends drop at once, and the edge comes back by its backoff', async () => {
    const c = await started();
    c.reset('edge-2');
    await runUntil(c.clock, () => !connected(c, 'edge-2') && !atHub(c, 'edge-2'), 'both ends see the reset', { budgetMs: 0 });
    await runUntil(c.clock, () => connected(c, 'edge-2') && atHub(c, 'edge-2'), 'edge-2 back', { budgetMs: 2 * c.timing.reconnectMaxMs });
  });

  it('an edge restarted, or rebooted, connects again', async () => {
    const c = await started();
    await c.stopEdge('edge-1');
    await runUntil(c.clock, () => !atHub(c, 'edge-1'), 'edge-1 gone from the hub', { budgetMs: 0 });
    await c.startEdge('edge-1');
    await runUntil(c.clock, () => atHub(c, 'edge-1'), 'edge-1 back');
    await c.stopEdge('edge-1');
    await c.startEdge('edge-1', { reboot: true });
    await runUntil(c.clock, () => atHub(c, 'edge-1') && connected(c, 'edge-1'), 'edge-1 back after a reboot');
  });

  it('the broker is a component: stopped, every edge is offline; started again, they come back', async () => {
    const c = await started();
    const broker = () => c.cloud.components.list().find((s) => s.name === 'broker');
    expect(broker()).toMatchObject({ running: true, stoppable: true });
    await c.cloud.components.stop('broker');
    await runUntil(c.clock, () => !connected(c, 'edge-1') && !connected(c, 'edge-2') && !c.cloud.hub.brokerLink().up, 'everyone offline', { budgetMs: 0 });
    expect(broker()).toMatchObject({ running: false, message: 'stopped' });
    await c.cloud.components.start('broker');
    await runUntil(c.clock, () => connected(c, 'edge-1') && connected(c, 'edge-2') && atHub(c, 'edge-1') && atHub(c, 'edge-2'), 'everyone back');
    await c.cloud.restartBroker();
    await runUntil(c.clock, () => atHub(c, 'edge-1') && atHub(c, 'edge-2'), 'everyone back after restartBroker');
  });

  it('link proxies are for transport mqtt', async () => {
    await expect(Cluster.start({ clock: new FakeClock(), nodes: 0, links: true })).rejects.toThrow(/links: true is for transport 'mqtt'/);
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 }));
    expect(() => c.link('edge-1')).toThrow(/cut, heal and reset the node on the cluster instead/);
  });
});
