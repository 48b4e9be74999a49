import { secondsSince } from './format.js';
import type { Lease, Node } from './kube.js';

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

/**
 * The node as the cloud sees it. Its last heartbeat is the newer of its Lease's renewTime (renewed
 * on every heartbeat) and the Ready condition's lastHeartbeatTime (moved by full status reports,
 * every few minutes when nothing changes), as `kubectl describe node` shows both.
 */
export function cloudNodeView(node: Node, now: number, lease?: Lease): CloudNodeView {
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
  const heartbeat = newest(ready?.lastHeartbeatTime, lease?.spec?.renewTime);
  if (heartbeat) {
    view.lastHeartbeat = heartbeat;
    view.heartbeatAgeSeconds = secondsSince(heartbeat, now);
  }
  return view;
}

function newest(a: string | undefined, b: string | undefined): string | undefined {
  if (!a || !b) return a || b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
