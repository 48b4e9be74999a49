import type { Node, Pod } from '../../../shared/types.js';
import { isPodReady, readySince } from './pod-state.js';

/**
 * Which pods a ReplicaSet deletes first when it scales down: kube's ActivePods ranking,
 * led by pods on NotReady/Unknown (or vanished) nodes. Earlier in the order = deleted first:
 *   on an unhealthy node < unscheduled < Pending < Unknown < Running < not ready < ready
 *   < lower pod-deletion-cost < ready for less time < more restarts < newer.
 */
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function onUnhealthyNode(pod: Pod, nodes: ReadonlyMap<string, Node>): boolean {
  const name = pod.spec.nodeName;
  if (!name) return false;
  const ready = nodes.get(name)?.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status !== 'True';
}

function restarts(pod: Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((sum, c) => sum + (c.restartCount ?? 0), 0);
}

function created(pod: Pod): number {
  const at = Date.parse(pod.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? Number.MAX_SAFE_INTEGER : at;
}

/** Sort keys, most deletable first: each is compared ascending. */
function keys(pod: Pod, nodes: ReadonlyMap<string, Node>): number[] {
  const cost = Number(pod.metadata.annotations?.[DELETION_COST] ?? 0);
  return [
    onUnhealthyNode(pod, nodes) ? 0 : 1,
    pod.spec.nodeName ? 1 : 0,
    phaseRank[pod.status?.phase ?? 'Pending'] ?? 3,
    isPodReady(pod) ? 1 : 0,
    Number.isFinite(cost) ? cost : 0,
    -(readySince(pod) ?? 0),
    -restarts(pod),
    -created(pod),
  ];
}

/** The `count` pods to delete first. Pure. */
export function podsToDelete(pods: readonly Pod[], nodes: ReadonlyMap<string, Node>, count: number): Pod[] {
  if (count <= 0) return [];
  const ranked = pods.map((pod) => ({ pod, keys: keys(pod, nodes) }));
  ranked.sort((a, b) => {
    for (let i = 0; i < a.keys.length; i++) if (a.keys[i] !== b.keys[i]) return a.keys[i]! - b.keys[i]!;
    return 0;
  });
  return ranked.slice(0, count).map((r) => r.pod);
}
