import type { Pod } from '../shared/types.js';
import type { Cluster } from '../sim/local-cluster.js';
import { podsIn } from '../edge/metamanager/local-cache.js';

const isUp = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.ready);

/**
 * True when `node`'s edge holds exactly the pods the cloud binds to it (same uids, same
 * labels), runs each of them, and the cloud shows every one of them Running and ready.
 */
export async function nodeConverged(cluster: Cluster, node: string, cloudPods: Pod[]): Promise<boolean> {
  const wanted = cloudPods.filter((p) => p.spec.nodeName === node);
  if (!wanted.every(isUp)) return false;
  const edge = cluster.edge(node);
  const held = new Map(podsIn(edge.cache).map((p) => [p.metadata.uid, p]));
  if (held.size !== wanted.length) return false;
  for (const pod of wanted) {
    const mine = held.get(pod.metadata.uid!);
    if (!mine || JSON.stringify(mine.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {})) return false;
  }
  const running = new Set((await edge.runtime.listContainers()).filter((c) => c.state === 'running').map((c) => c.podUid));
  return wanted.every((p) => running.has(p.metadata.uid!));
}

export async function allPods(cluster: Cluster): Promise<Pod[]> {
  return (await cluster.api.list<Pod>({ resource: 'pods', namespace: 'default' })).items;
}
