import type { FakeClock } from '../../shared/clock.js';
import type { Node, Pod } from '../../shared/types.js';
import type { Cluster } from '../../sim/local-cluster.js';
import { eventually } from './eventually.js';

export const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });

export const newPod = (name: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] },
});

const isReady = (node: Node): boolean => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** How a test waits on a cluster's FakeClock: `eventually` (real sockets too) or settle.ts's `runUntil` (fake time alone). */
export type ClusterWait = <T>(clock: FakeClock, check: () => T | undefined | false | Promise<T | undefined | false>, what: string) => Promise<T>;

/** Waits for every edge to be Ready, then creates pod `name` and waits until it runs. */
export async function startFirstPod(c: Cluster<FakeClock>, name: string, wait: ClusterWait = eventually): Promise<Pod> {
  await wait(c.clock, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter(isReady).length === c.edges.size, 'nodes Ready');
  await c.api.create(podRef(name), newPod(name));
  return wait(c.clock, async () => {
    const pod = await c.api.get<Pod>(podRef(name));
    return pod.status?.phase === 'Running' && pod;
  }, `pod ${name} Running`);
}
