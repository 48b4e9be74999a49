import type { Pod, PodStatus } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import type { ConditionStatus } from './taints.js';

/** A pod whose Ready condition becomes False: its status to write through pods/status. */
export interface PodNotReadyAction {
  pod: Pod;
  status: PodStatus;
}

/**
 * Kubernetes' MarkPodsNotReady: while the node is not Ready, every pod bound to it that has a
 * Ready condition not yet False gets Ready=False (nobody can vouch for it). Once written the pod
 * no longer qualifies, so each pod is marked once per outage. Pure.
 */
export function planPodsNotReady(nodeName: string, nodeReady: ConditionStatus | undefined, pods: Iterable<Pod>, now: number): PodNotReadyAction[] {
  if (nodeReady === undefined || nodeReady === 'True') return [];
  const actions: PodNotReadyAction[] = [];
  for (const pod of pods) {
    if (pod.spec.nodeName !== nodeName || pod.metadata.deletionTimestamp) continue;
    const conditions = pod.status?.conditions ?? [];
    if (!conditions.some((c) => c.type === 'Ready' && c.status !== 'False')) continue;
    const marked = conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' as const, lastTransitionTime: timestamp(now) } : c));
    actions.push({ pod, status: { ...pod.status, conditions: marked } });
  }
  return actions;
}
