import { secondsSince } from './format.js';
import type { Node } from './kube.js';

export type Readiness = 'Ready' | 'NotReady' | 'Unknown';

/** What the cloud believes about a node: its Ready condition, taints and last heartbeat. */
export interface CloudNodeView {
  name: string;
  readiness: Readiness;
  /** The Ready condition's reason and message, e.g. "NodeStatusUnknown: Kubelet stopped posting node status." */
  reason: string;
  taints: string[];
  lastHeartbeat?: string;
  heartbeatAgeSeconds?: number;
  unschedulable: boolean;
}

export function cloudNodeView(node: Node, now: number): CloudNodeView {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const readiness: Readiness = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
  const reason = ready ? [ready.reason, ready.message].filter(Boolean).join(': ') : 'no Ready condition yet';
  const view: CloudNodeView = {
    name: node.metadata.name ?? '',
    readiness,
    reason,
    taints: (node.spec?.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`),
    unschedulable: node.spec?.unschedulable === true,
  };
  if (ready?.lastHeartbeatTime) {
    view.lastHeartbeat = ready.lastHeartbeatTime;
    view.heartbeatAgeSeconds = secondsSince(ready.lastHeartbeatTime, now);
  }
  return view;
}
