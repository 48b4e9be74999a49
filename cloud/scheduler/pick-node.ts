import type { Node, Pod, Taint, Toleration } from '../../shared/types.js';

/**
 * Placement, decided purely: filter the nodes a pod may run on, then score them. Filters:
 * Ready=True, not cordoned, the pod's nodeSelector, and every NoSchedule/NoExecute taint
 * tolerated. Score: the fewest pods wins; ties go to the first name.
 */
export function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.operator === 'Exists') return !toleration.key || toleration.key === taint.key;
  return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '');
}

/** What a node offers to any pod, worked out once per node object (nodes are immutable snapshots). */
interface Offer {
  open: boolean;
  labels: Record<string, string>;
  hardTaints: Taint[];
}

/** Per-node facts worked out so far; keyed by node object, so a changed node is seen afresh. */
export type NodeOffers = WeakMap<Node, Offer>;

function offerOf(node: Node, offers: NodeOffers): Offer {
  let offer = offers.get(node);
  if (!offer) {
    const open = isReady(node) && !node.spec?.unschedulable;
    offer = { open, labels: node.metadata.labels ?? {}, hardTaints: (node.spec?.taints ?? []).filter((t) => t.effect !== 'PreferNoSchedule') };
    offers.set(node, offer);
  }
  return offer;
}

export function fits(pod: Pod, node: Node, offers: NodeOffers = new WeakMap()): boolean {
  const { open, labels, hardTaints } = offerOf(node, offers);
  if (!open) return false;
  for (const key in pod.spec.nodeSelector) if (labels[key] !== pod.spec.nodeSelector[key]) return false;
  if (hardTaints.length === 0) return true;
  const tolerations = pod.spec.tolerations ?? [];
  return hardTaints.every((taint) => tolerations.some((tol) => tolerates(tol, taint)));
}

/**
 * The least loaded node the pod fits. `offers` caches per-node facts across calls (the
 * scheduler passes one that lives as long as it does), so a pick costs little per node.
 */
export function pickNode(pod: Pod, nodes: Iterable<Node>, podsPerNode: ReadonlyMap<string, number>, offers: NodeOffers = new WeakMap()): string | undefined {
  let best: { name: string; load: number } | undefined;
  for (const node of nodes) {
    const name = node.metadata.name;
    if (!name || !fits(pod, node, offers)) continue;
    const load = podsPerNode.get(name) ?? 0;
    if (!best || load < best.load || (load === best.load && name < best.name)) best = { name, load };
  }
  return best?.name;
}

/** What about a node can change where pods fit: a change here re-queues unscheduled pods. */
export function fitSignature(node: Node): string {
  return JSON.stringify([isReady(node), node.spec?.unschedulable ?? false, node.spec?.taints ?? [], node.metadata.labels ?? {}]);
}
