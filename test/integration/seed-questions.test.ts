import { afterEach, describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import type { Deployment } from '../../shared/apps-types.js';
import { FakeClock } from '../../shared/clock.js';
import type { Node, ObjectList, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const deployRef = { resource: 'deployments', group: 'apps', namespace: 'default', name: 'web' };
const podsRef = { resource: 'pods', namespace: 'default' };
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

function web(replicas: number, labels: Record<string, string> = {}): Deployment {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', ...labels } }, spec: { containers: [{ name: 'web', image: 'kedge.io/hello:1.0' }] } },
    },
  } as Deployment;
}

const readyOf = (node: Node): string | undefined => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const running = (pods: ObjectList<Pod>): Pod[] => pods.items.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);

async function startWeb(c: Cluster<FakeClock>, replicas: number, labels?: Record<string, string>): Promise<Pod[]> {
  await runUntil(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter((n) => readyOf(n) === 'True').length === c.edges.size, 'nodes Ready');
  await c.api.create(deployRef, web(replicas, labels));
  return runUntil(c.clock, async () => {
    const pods = running(await c.api.list<Pod>(podsRef));
    return pods.length === replicas && pods;
  }, `${replicas} web pods Running`);
}

/**
 * The seed articles' questions, acted out: what happens when a part of the control plane, or a
 * node, is gone. Over the in-memory broker, on fake time alone: keepalives, leases and evictions
 * all run on the cluster's clock.
 */
describe('the seed questions', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('controller-manager stopped: a deleted pod of a Deployment is not replaced until it starts again', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    const pods = await startWeb(c, 2);

    await c.cloud.components.stop('controller-manager');
    await c.api.delete({ ...podsRef, name: pods[0]!.metadata.name });
    const names = async (): Promise<string[]> => (await c.api.list<Pod>(podsRef)).items.map((p) => p.metadata.name!);
    // Gone once its edge has stopped it (real, fsynced file writes on the way), then not replaced.
    await runUntil(c.clock, async () => (await names()).join() === pods[1]!.metadata.name, 'the deleted pod gone');
    await pass(c.clock, 30 * SECOND, SECOND);
    expect(await names()).toEqual([pods[1]!.metadata.name]);

    await c.cloud.components.start('controller-manager');
    await runUntil(c.clock, async () => running(await c.api.list<Pod>(podsRef)).length === 2, 'a replacement Running');
  });

  it('a node cut off for 10 minutes: Unknown after 40 s, its pods evicted at 5 minutes and recreated elsewhere, old copies stopped on heal', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 3, timing: { keepaliveMs: 2_000 } });
    const c = cluster;
    const pods = await startWeb(c, 3);
    const victim = pods.find((p) => p.spec.nodeName === 'edge-2')!;
    expect(victim).toBeDefined();
    const cutAt = c.clock.now();
    c.cut('edge-2');
    // The broker notices by its keepalive, on the same clock: 1.5 keepalives.
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-2'), 'the hub to notice', { budgetMs: 2 * c.timing.keepaliveMs });

    const node = async (): Promise<Node> => c.api.get<Node>({ resource: 'nodes', name: 'edge-2' });
    await pass(c.clock, 35 * SECOND, SECOND);
    expect(readyOf(await node())).toBe('True');
    const unknownAt = await runUntil(c.clock, async () => readyOf(await node()) === 'Unknown' && c.clock.now(), 'edge-2 Unknown', { stepMs: SECOND });
    expect(unknownAt - cutAt).toBeGreaterThan(40 * SECOND);
    expect(unknownAt - cutAt).toBeLessThanOrEqual(40 * SECOND + c.timing.nodeMonitorPeriodMs + 2 * c.timing.nodeStatusIntervalMs);
    expect((await node()).spec?.taints?.map((t) => `${t.key}:${t.effect}`)).toContain('node.kubernetes.io/unreachable:NoExecute');

    await pass(c.clock, 4 * MINUTE, SECOND);
    const victimNow = async (): Promise<Pod | undefined> => (await c.api.list<Pod>(podsRef)).items.find((p) => p.metadata.uid === victim.metadata.uid);
    expect((await victimNow())?.metadata.deletionTimestamp).toBeUndefined();
    // Evicted: deleted gracefully, so it stays Terminating until its kubelet says it stopped.
    await runUntil(c.clock, async () => (await victimNow())?.metadata.deletionTimestamp !== undefined, 'the pod evicted', { stepMs: SECOND });
    expect(c.clock.now() - unknownAt).toBeGreaterThanOrEqual(5 * MINUTE - 2 * c.timing.nodeMonitorPeriodMs);
    const replaced = await runUntil(c.clock, async () => {
      const now = running(await c.api.list<Pod>(podsRef));
      return now.length === 3 && now;
    }, '3 pods Running again', { stepMs: SECOND });
    expect(replaced.map((p) => p.spec.nodeName)).not.toContain('edge-2');
    // Meanwhile the edge knows nothing of it: the old copy still runs there.
    expect((await c.edge('edge-2').runtime.listContainers()).filter((x) => x.podUid === victim.metadata.uid && x.state === 'running')).toHaveLength(1);

    await pass(c.clock, 10 * MINUTE - (c.clock.now() - cutAt), SECOND);
    c.heal('edge-2');
    await runUntil(c.clock, async () => (await c.edge('edge-2').runtime.listContainers()).every((x) => x.podUid !== victim.metadata.uid), 'the old copy stopped on edge-2');
    await runUntil(c.clock, async () => (await victimNow()) === undefined, 'the evicted pod removed once edge-2 stopped it');
    await runUntil(c.clock, async () => readyOf(await node()) === 'True' && !(await node()).spec?.taints?.length, 'edge-2 Ready, untainted');
    const events = await runUntil(c.clock, async () => {
      const list = await c.api.list<KubeEvent>({ resource: 'events', namespace: 'default' });
      return list.items.find((e) => e.reason === 'StalePodStopped') && list.items;
    }, 'a StalePodStopped event');
    const stale = events.find((e) => e.reason === 'StalePodStopped')!;
    expect(stale.involvedObject).toMatchObject({ kind: 'Node', name: 'edge-2' });
    // Evicted about 5m45s into the cut, healed at 10m: both copies ran for about 4m15s.
    expect(stale.message).toMatch(new RegExp(`^Pod default/${victim.metadata.name} kept running on edge-2 for 4m\\d+s after it was deleted`));
    expect(events.some((e) => e.reason === 'TaintManagerEviction' && e.involvedObject.name === victim.metadata.name)).toBe(true);
  });

  it("with KubeEdge's autonomy label, a pod is never evicted from an unreachable node", async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 2_000 } });
    const c = cluster;
    const pods = await startWeb(c, 2, { 'app-offline.kubeedge.io': 'autonomy' });
    c.cut('edge-2');
    await pass(c.clock, 10 * MINUTE, 5 * SECOND);
    const node = await c.api.get<Node>({ resource: 'nodes', name: 'edge-2' });
    expect(readyOf(node)).toBe('Unknown');
    expect((await c.api.list<Pod>(podsRef)).items.map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
  });
});
