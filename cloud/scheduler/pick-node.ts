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

export function fits(pod: Pod, node: Node): boolean {
  if (!isReady(node) || node.spec?.unschedulable) return false;
  const labels = node.metadata.labels ?? {};
  if (Object.entries(pod.spec.nodeSelector ?? {}).some(([k, v]) => labels[k] !== v)) return false;
  const tolerations = pod.spec.tolerations ?? [];
  return (node.spec?.taints ?? [])
    .filter((t) => t.effect !== 'PreferNoSchedule')
    .every((taint) => tolerations.some((tol) => tolerates(tol, taint)));
}

export function pickNode(pod: Pod, nodes: readonly Node[], podsPerNode: ReadonlyMap<string, number>): string | undefined {
  let best: { name: string; load: number } | undefined;
  for (const node of nodes) {
    const name = node.metadata.name;
    if (!name || !fits(pod, node)) continue;
    const load = podsPerNode.get(name) ?? 0;
    if (!best || load < best.load || (load === best.load && name < best.name)) best = { name, load };
  }
  return best?.name;
}

/** What about a node can change where pods fit: a change here re-queues unscheduled pods. */
export function fitSignature(node: Node): string {
  return JSON.stringify([isReady(node), node.spec?.unschedulable ?? false, node.spec?.taints ?? [], node.metadata.labels ?? {}]);
}
