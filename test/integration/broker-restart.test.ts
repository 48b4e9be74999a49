import { afterEach, describe, expect, it } from 'vitest';
import type { NodeSync } from '../../cloud/client/nodesync.js';
import type { Node, Pod } from '../../shared/types.js';
import { FakeClock } from '../../shared/clock.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const newPod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] },
});
const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** pod name → container id, from the cloud's view of pod status. */
const containerIds = (pods: Pod[]): Map<string, string> =>
  new Map(pods.map((p) => [p.metadata.name!, p.status?.containerStatuses?.[0]?.containerID ?? '']));

describe('the embedded broker restarts (in memory: it forgets every session and retained message)', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const start = async (): Promise<Cluster<FakeClock>> => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 }));
    await runUntil(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter(isReady).length === 2, 'nodes Ready');
    return c;
  };
  const allRunning = (c: Cluster<FakeClock>, count: number) =>
    runUntil(c.clock, async () => {
      const { items } = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return items.length === count && items.every((p) => p.status?.phase === 'Running') && items;
    }, `${count} pods Running`);
  /** Each edge holds exactly the pods bound to it, and runs one container per pod. */
  const edgesHoldExactly = (c: Cluster<FakeClock>, pods: Pod[]) =>
    runUntil(c.clock, async () => {
      for (const node of c.edges.keys()) {
        const want = pods.filter((p) => p.spec.nodeName === node).map((p) => p.metadata.uid).sort();
        const held = (await c.edgePods(node)).map((p) => p.metadata.uid).sort();
        const running = (await c.edge(node).runtime.listContainers()).filter((k) => k.state === 'running').map((k) => k.podUid).sort();
        if (JSON.stringify(held) !== JSON.stringify(want) || JSON.stringify(running) !== JSON.stringify(want)) return false;
      }
      return true;
    }, 'edges hold exactly their pods');

  it('converges after a restart with pods created and deleted while it was down, restarting no container', async () => {
    const c = await start();
    for (const name of ['a', 'b', 'c', 'd']) await c.api.create(podRef(name), newPod(name));
    const before = await allRunning(c, 4);
    const idsBefore = containerIds(before);

    await c.cloud.restartBroker(async () => {
      await c.api.create(podRef('e'), newPod('e'));
      await c.api.create(podRef('f'), newPod('f'));
      await c.api.delete(podRef('a'));
      await c.clock.advance(5_000); // edges and hub retry against a closed port meanwhile
    });
    expect(c.cloud.hub.connectedNodes()).toEqual([]); // nobody counts as connected before a hello

    const after = await allRunning(c, 5);
    expect(after.map((p) => p.metadata.name).sort()).toEqual(['b', 'c', 'd', 'e', 'f']);
    await edgesHoldExactly(c, after);
    for (const pod of after) expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    for (const name of ['b', 'c', 'd']) expect(containerIds(after).get(name)).toBe(idsBefore.get(name));
    expect(c.cloud.hub.connectedNodes()).toEqual(['edge-1', 'edge-2']);

    // The ledger caught up with the acks, in memory and in the NodeSync objects.
    await runUntil(c.clock, async () => {
      const { items } = await c.api.list<NodeSync>({ resource: 'nodesyncs', group: 'sync.kedge.io' });
      return items.every((s) => {
        const want = after.filter((p) => p.spec.nodeName === s.metadata.name).map((p) => p.metadata.uid!).sort();
        const pods = Object.entries(s.status?.objects ?? {}).filter(([, o]) => o.kind === 'Pod'); // beside its Node and Services [SYNC-19]
        return JSON.stringify(pods.map(([uid]) => uid).sort()) === JSON.stringify(want);
      }) && items.length === 2;
    }, 'NodeSyncs match the pods');
  });

  it('survives two restarts in a row', async () => {
    const c = await start();
    for (const name of ['a', 'b']) await c.api.create(podRef(name), newPod(name));
    const before = await allRunning(c, 2);
    await c.cloud.restartBroker();
    await c.cloud.restartBroker(() => c.api.create(podRef('c'), newPod('c')).then(() => undefined));
    const after = await allRunning(c, 3);
    await edgesHoldExactly(c, after);
    for (const [name, id] of containerIds(before)) expect(containerIds(after).get(name)).toBe(id);
  });

  it('sends the tombstone of a pod deleted while its node was offline at its next hello [SYNC-3][SYNC-10]', async () => {
    const c = await start();
    await c.api.create(podRef('gone'), newPod('gone'));
    await c.api.create(podRef('kept'), newPod('kept'));
    const pods = await allRunning(c, 2);
    const gone = pods.find((p) => p.metadata.name === 'gone')!;
    const node = gone.spec.nodeName!;

    await c.stopEdge(node); // the edge goes away holding the pod
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes(node), `${node} offline`);
    await c.api.delete(podRef('gone'));
    await c.clock.advance(10_000);

    const edge = await c.startEdge(node);
    await runUntil(c.clock, async () => !(await c.edgePods(node)).some((p) => p.metadata.uid === gone.metadata.uid), 'tombstone applied');
    await runUntil(c.clock, async () => !(await edge.runtime.listContainers()).some((k) => k.podUid === gone.metadata.uid), 'container removed');
    await edgesHoldExactly(c, pods.filter((p) => p !== gone));
    await runUntil(c.clock, () => c.cloud.ledger.get(node, gone.metadata.uid!) === undefined, 'tombstone acked: the ledger forgot it');
  });
});
