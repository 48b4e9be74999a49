import { afterEach, describe, expect, it } from 'vitest';
import { podsIn } from '../../edge/metamanager/local-cache.js';
import { FakeClock } from '../../shared/clock.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const newPod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name } },
  spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] },
});

const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('cloud and edges in one process, over the in-memory broker, on fake time alone', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('registers edges, runs a created pod on one, and removes it when deleted', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    await runUntil(c.clock, async () => {
      const nodes = await c.api.list<Node>({ resource: 'nodes' });
      return nodes.items.length === 2 && nodes.items.every(isReady);
    }, 'both nodes Ready');

    const created = await c.api.create(podRef('hello'), newPod('hello'));
    const running = await runUntil(c.clock, async () => {
      const pod = await c.api.get<Pod>(podRef('hello'));
      return pod.status?.phase === 'Running' && pod;
    }, 'hello Running in the cloud');
    const node = running.spec.nodeName!;
    expect(['edge-1', 'edge-2']).toContain(node);
    expect(running.status?.podIP).toMatch(/^127\.\d+\.\d+\.2$/); // the first pod address of its node's podCIDR
    expect(running.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', ready: true, restartCount: 0 });

    // What each edge holds, read from its cache in this process.
    const onEdge = podsIn(c.edge(node).cache);
    expect(onEdge.map((p) => [p.metadata.name, p.metadata.uid])).toEqual([['hello', created.metadata.uid]]);
    const other = node === 'edge-1' ? 'edge-2' : 'edge-1';
    expect(podsIn(c.edge(other).cache)).toEqual([]);

    // Graceful: Terminating until the edge has stopped it, then removed [SYNC-17].
    await c.api.delete(podRef('hello'));
    expect((await c.api.get<Pod>(podRef('hello'))).metadata.deletionTimestamp).toBeDefined();
    await runUntil(c.clock, async () => !(await c.api.list<Pod>({ resource: 'pods', namespace: 'default' })).items.length, 'hello removed from the API');
    await runUntil(c.clock, () => podsIn(c.edge(node).cache).length === 0, 'hello gone from the edge');
    await runUntil(c.clock, async () => (await c.edge(node).runtime.listContainers()).length === 0, 'containers removed');
  });

  it('spreads pods over the nodes: fewest pods wins', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    await runUntil(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter(isReady).length === 2, 'nodes Ready');
    for (const name of ['a', 'b', 'c', 'd']) await c.api.create(podRef(name), newPod(name));
    const pods = await runUntil(c.clock, async () => {
      const list = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return list.items.every((p) => p.status?.phase === 'Running') && list.items;
    }, 'all pods Running');
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec.nodeName!, (perNode.get(p.spec.nodeName!) ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2]);
  });
});
