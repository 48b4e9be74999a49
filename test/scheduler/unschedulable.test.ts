import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('an unschedulable pod, against the real apiserver and edges', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('is told why through a merge patch of pods/status', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    await eventually(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter(isReady).length === 2, 'nodes Ready');
    const ref = { resource: 'pods', namespace: 'default', name: 'big' };
    const big: Pod = { metadata: { name: 'big' }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0', resources: { requests: { cpu: '5' } } }] } };
    await c.api.create(ref, big);
    const condition = await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.conditions?.find((x) => x.type === 'PodScheduled'), 'PodScheduled set');
    expect(condition).toMatchObject({ status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient cpu.' });
    expect((await c.api.get<Pod>(ref)).spec.nodeName).toBeUndefined();
  });
});
