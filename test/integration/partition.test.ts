import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import type { ContainerInfo } from '../../edge/runtime/runtime.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';
import { FakeClock } from '../../shared/clock.js';

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
/** Autonomous (KubeEdge's label): no eviction however long the node is away, so the sync alone is tested. */
const pinned = (name: string, node: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name, 'app-offline.kubeedge.io': 'autonomy' } },
  spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/app:1' }] },
});
const MINUTE = 60_000;

/** Container ids per pod name on an edge: a pod that ran twice would show a second id. */
async function containersByPod(cluster: Cluster<FakeClock>, node: string): Promise<Map<string, string[]>> {
  const edge = cluster.edge(node);
  const podNames = new Map((await cluster.edgePods(node)).map((p) => [p.metadata.uid!, p.metadata.name!]));
  const out = new Map<string, string[]>();
  for (const c of await edge.runtime.listContainers()) {
    const name = podNames.get(c.podUid) ?? `gone:${c.podUid}`;
    out.set(name, [...(out.get(name) ?? []), c.id]);
  }
  return out;
}

const running = (cs: ContainerInfo[]): boolean => cs.length > 0 && cs.every((c) => c.state === 'running');

describe('a pulled cable', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('keeps pods running through a 10-minute partition and reconciles exactly on heal', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    for (const name of ['a', 'c']) await c.api.create(ref(name), pinned(name, 'edge-1'));
    await runUntil(c.clock, async () => {
      const pods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return pods.items.length === 2 && pods.items.every((p) => p.status?.phase === 'Running');
    }, 'a and c Running');
    const before = await containersByPod(c, 'edge-1');

    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the cloud to notice', { budgetMs: 2 * c.timing.keepaliveMs });
    await c.api.delete(ref('a'));
    await c.api.create(ref('b'), pinned('b', 'edge-1'));
    await c.api.patch(ref('c'), { metadata: { labels: { app: 'c', tier: 'gold' } } }, 'merge');

    // Ten minutes of protocol time pass; the edge keeps running what it has.
    for (let t = 0; t < 10 * MINUTE; t += MINUTE) {
      await pass(c.clock, MINUTE, 1_000);
      const now = await c.edge('edge-1').runtime.listContainers();
      expect(running(now)).toBe(true);
      expect(now.map((x) => x.id).sort()).toEqual([...before.values()].flat().sort());
    }
    expect(await c.edgePods('edge-1')).toHaveLength(2);

    c.heal('edge-1');
    await runUntil(c.clock, async () => {
      const onEdge = await c.edgePods('edge-1');
      const names = onEdge.map((p) => p.metadata.name).sort();
      const cPod = onEdge.find((p) => p.metadata.name === 'c');
      if (names.join() !== 'b,c' || cPod?.metadata.labels?.tier !== 'gold') return false;
      const cloudPods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return cloudPods.items.every((p) => p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready);
    }, 'edge-1 to run b and c (relabelled) and the cloud to show them Running');
    // How fast this happens (typically a few hundred ms of wall time) is measured by bench/reconnect.

    const after = await containersByPod(c, 'edge-1');
    expect([...after.keys()].sort()).toEqual(['b', 'c']);
    expect(after.get('c')).toEqual(before.get('c'));
    expect(after.get('b')).toHaveLength(1);
    const cloudC = await c.api.get<Pod>(ref('c'));
    expect(cloudC.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });
});

describe('the cloud wrote its own view of a pod while the edge was away', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const readyOf = (pod: Pod): string | undefined => pod.status?.conditions?.find((cond) => cond.type === 'Ready')?.status;
  const markNotReady = (pod: Pod): Pod => ({
    ...pod,
    status: { ...pod.status, conditions: (pod.status?.conditions ?? []).map((cond) => (cond.type === 'Ready' ? { ...cond, status: 'False' } : cond)) },
  });

  const clusterWithReadyPod = async (): Promise<Cluster<FakeClock>> => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    await c.api.create(ref('a'), pinned('a', 'edge-1'));
    await runUntil(c.clock, async () => readyOf(await c.api.get<Pod>(ref('a'))) === 'True', 'a Ready');
    return c;
  };
  const cutAndWait = async (c: Cluster<FakeClock>): Promise<void> => {
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the cloud to notice', { budgetMs: 2 * c.timing.keepaliveMs });
  };

  it('after a long absence the edge reports every pod again, and its own view wins', async () => {
    const c = await clusterWithReadyPod();

    await cutAndWait(c);
    // What the node controller does to the pods of an unreachable node.
    await c.api.replace({ ...ref('a'), subresource: 'status' }, markNotReady(await c.api.get<Pod>(ref('a'))));
    await pass(c.clock, c.timing.nodeMonitorGraceMs, 1_000);

    c.heal('edge-1');
    await runUntil(c.clock, async () => readyOf(await c.api.get<Pod>(ref('a'))) === 'True', 'the edge to put Ready back');
  });

  it('after a short absence in which the node controller marked its pods not ready, the cloud asks for every status again', async () => {
    const c = await clusterWithReadyPod();

    await cutAndWait(c);
    // The cloud's last heartbeat can be older than the edge's own notice of the cut: the node
    // controller may act while the edge has been away for only a few seconds.
    await c.api.replace({ ...ref('a'), subresource: 'status' }, markNotReady(await c.api.get<Pod>(ref('a'))));
    await pass(c.clock, 2_000, 1_000);

    c.heal('edge-1');
    await runUntil(c.clock, async () => readyOf(await c.api.get<Pod>(ref('a'))) === 'True', 'the edge to put Ready back');
  });

  it('a short blip re-sends nothing the cloud already has', async () => {
    const c = await clusterWithReadyPod();
    await pass(c.clock, 10_000, 1_000);
    const before = (await c.api.get<Pod>(ref('a'))).metadata.resourceVersion;
    const received = c.cloud.hub.stats().received;

    c.reset('edge-1');
    await runUntil(c.clock, () => c.cloud.hub.stats().received > received + 1 && c.cloud.hub.connectedNodes().includes('edge-1'), 'the edge back');
    await pass(c.clock, 5_000, 1_000);
    expect((await c.api.get<Pod>(ref('a'))).metadata.resourceVersion).toBe(before);
  });
});
