import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonSet } from '../../shared/daemonset-types.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';
import { newAgent } from '../controllers/daemonset/fixtures.js';

const dsRef = { resource: 'daemonsets', group: 'apps', namespace: 'default' };
const plain: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/app:1' }] } };

const isRunning = (p: Pod): boolean => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp;

describe('a DaemonSet on the edges', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('runs one pod per edge, gives a joining edge its own, and keeps it on a cut-off edge past the default toleration', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000 } });
    const c = cluster;
    const agentPods = async (): Promise<Pod[]> => (await c.api.list<Pod>({ resource: 'pods', namespace: 'default' }, { labelSelector: 'app=agent' })).items;
    const byNode = async (): Promise<Map<string, Pod[]>> => {
      const out = new Map<string, Pod[]>();
      for (const p of await agentPods()) out.set(p.spec.nodeName ?? '', [...(out.get(p.spec.nodeName ?? '') ?? []), p]);
      return out;
    };
    const onePerNode = (nodes: string[]) => async (): Promise<boolean> => {
      const placed = await byNode();
      return placed.size === nodes.length && nodes.every((n) => placed.get(n)?.length === 1 && isRunning(placed.get(n)![0]!));
    };

    await c.api.create(dsRef, newAgent());
    await runUntil(c.clock, onePerNode(['edge-1', 'edge-2']), 'one Running agent pod on each edge');
    await runUntil(c.clock, async () => {
      const s = (await c.api.get<DaemonSet>({ ...dsRef, name: 'agent' })).status;
      return s?.desiredNumberScheduled === 2 && s.numberReady === 2 && s.updatedNumberScheduled === 2 && s.numberAvailable === 2;
    }, 'the DaemonSet status to count two ready pods');

    await c.startEdge('edge-3');
    await runUntil(c.clock, onePerNode(['edge-1', 'edge-2', 'edge-3']), 'the joining edge to get its agent pod');

    await c.api.create({ resource: 'pods', namespace: 'default' }, plain);
    await runUntil(c.clock, async () => isRunning(await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'plain' })), 'the plain pod Running');
    const [daemonPod] = (await byNode()).get('edge-1')!;

    c.cut('edge-1');
    // The grace period, then the plain pod's 300 s toleration of the unreachable taint, and a minute more.
    await pass(c.clock, c.timing.nodeMonitorGraceMs + 360_000, 1_000);
    // Evicted: deleted gracefully, it stays Terminating until its kubelet says it stopped.
    expect((await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'plain' })).metadata.deletionTimestamp).toBeDefined();
    const edge1 = (await byNode()).get('edge-1') ?? [];
    expect(edge1.map((p) => [p.metadata.uid, p.metadata.deletionTimestamp])).toEqual([[daemonPod!.metadata.uid, undefined]]);
    expect(edge1[0]!.status?.conditions?.find((cond) => cond.type === 'Ready')?.status).toBe('False');
    const node = await c.api.get<{ spec?: { taints?: { key: string }[] } } & Pod>({ resource: 'nodes', name: 'edge-1' });
    expect(node.spec?.taints?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');
    const containers = await c.edge('edge-1').runtime.listContainers();
    expect(containers.filter((x) => x.podUid === daemonPod!.metadata.uid).map((x) => x.state)).toEqual(['running']);

    c.heal('edge-1');
    await runUntil(c.clock, onePerNode(['edge-1', 'edge-2', 'edge-3']), 'edge-1 back with the same agent pod');
    expect((await byNode()).get('edge-1')![0]!.metadata.uid).toBe(daemonPod!.metadata.uid);
  });
});
