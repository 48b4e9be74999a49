import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Node } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const nodes = { resource: 'nodes' };
const rangeOf = async (c: Cluster, name: string): Promise<[string | undefined, string[] | undefined]> => {
  const { spec } = await c.api.get<Node>({ ...nodes, name });
  return [spec?.podCIDR, spec?.podCIDRs];
};
const bare = (name: string): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: {} });

/** The node-IPAM controller in a running cluster: each node a range of 127.64.0.0/10, kept through heartbeats and restarts. */
describe('node IPAM', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('gives each edge its own /24 in spec.podCIDR and spec.podCIDRs, which its heartbeats keep', async () => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 3 }));
    await runUntil(c.clock, async () => (await Promise.all(['edge-1', 'edge-2', 'edge-3'].map((n) => rangeOf(c, n)))).every(([cidr]) => cidr), 'every edge with a podCIDR');
    const ranges = await Promise.all(['edge-1', 'edge-2', 'edge-3'].map((n) => rangeOf(c, n)));
    for (const [cidr, cidrs] of ranges) expect(cidrs).toEqual([cidr]);
    expect(ranges.map(([cidr]) => cidr).sort()).toEqual(['127.64.0.0/24', '127.64.1.0/24', '127.64.2.0/24']);

    await pass(c.clock, 3 * c.timing.nodeStatusIntervalMs, 1_000);
    expect(await Promise.all(['edge-1', 'edge-2', 'edge-3'].map((n) => rangeOf(c, n)))).toEqual(ranges);
  });

  it('started again, marks the ranges nodes have before it allocates; a deleted node\'s range is not reused at once', async () => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 }));
    await runUntil(c.clock, async () => (await rangeOf(c, 'edge-2'))[0] !== undefined, 'edge-2 with a podCIDR');
    const taken = [(await rangeOf(c, 'edge-1'))[0], (await rangeOf(c, 'edge-2'))[0]].sort();

    await c.cloud.components.stop('nodeipam');
    await c.api.create(nodes, bare('late'));
    await pass(c.clock, 2_000, 100);
    expect((await rangeOf(c, 'late'))[0]).toBeUndefined();
    await c.cloud.components.start('nodeipam');
    await runUntil(c.clock, async () => (await rangeOf(c, 'late'))[0] !== undefined, 'late with a podCIDR');
    expect(taken).toEqual(['127.64.0.0/24', '127.64.1.0/24']);
    expect(await rangeOf(c, 'late')).toEqual(['127.64.2.0/24', ['127.64.2.0/24']]);

    await c.api.delete({ ...nodes, name: 'late' });
    await c.api.create(nodes, bare('later'));
    await runUntil(c.clock, async () => (await rangeOf(c, 'later'))[0] !== undefined, 'later with a podCIDR');
    expect((await rangeOf(c, 'later'))[0]).toBe('127.64.3.0/24');
  });
});
