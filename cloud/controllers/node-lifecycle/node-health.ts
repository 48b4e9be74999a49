import type { Timing } from '../../../shared/timing.js';
import type { Node, NodeCondition, Taint } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import type { EventType } from '../events.js';
import type { NodeProbe } from './heartbeat.js';
import { taintsForReadiness, type ConditionStatus } from './taints.js';

/** What the controller does about one node's health (Kubernetes' monitorNodeHealth for one node). */
export type NodeHealthAction =
  /** Write these conditions through nodes/status. */
  | { type: 'writeConditions'; conditions: NodeCondition[] }
  /** Write these taints into spec.taints. */
  | { type: 'writeTaints'; taints: Taint[] }
  | { type: 'event'; eventType: EventType; reason: string; message: string };

export interface NodeHealthPlan {
  /** The Ready status once the actions are applied; undefined for a node that never reported one. */
  ready: ConditionStatus | undefined;
  actions: NodeHealthAction[];
}

/** The conditions the kubelet owns and the controller sets to Unknown when the kubelet falls silent. */
const KUBELET_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
export const NODE_STATUS_UNKNOWN = 'NodeStatusUnknown';
const NEVER_UPDATED = 'NodeStatusNeverUpdated';

/** Whether the node has been silent for longer than the grace period (strictly, as Kubernetes). */
export function isSilent(probe: NodeProbe, now: number, timing: Pick<Timing, 'nodeMonitorGraceMs'>): boolean {
  return now - probe.probeTime > timing.nodeMonitorGraceMs;
}

/** The kubelet's conditions set to Unknown (missing ones added), or undefined when they already are. */
function markedUnknown(conditions: readonly NodeCondition[], now: number): NodeCondition[] | undefined {
  const at = timestamp(now);
  let changed = false;
  const out = conditions.map((c) => {
    if (!KUBELET_CONDITIONS.includes(c.type) || c.status === 'Unknown') return c;
    changed = true;
    return { ...c, status: 'Unknown' as const, reason: NODE_STATUS_UNKNOWN, message: 'Kubelet stopped posting node status.', lastTransitionTime: at };
  });
  for (const type of KUBELET_CONDITIONS) {
    if (out.some((c) => c.type === type)) continue;
    changed = true;
    out.push({ type, status: 'Unknown', reason: NEVER_UPDATED, message: 'Kubelet never posted node status.', lastHeartbeatTime: at, lastTransitionTime: at });
  }
  return changed ? out : undefined;
}

function readinessEvent(name: string, before: ConditionStatus | undefined, after: ConditionStatus | undefined): NodeHealthAction | undefined {
  if (before === undefined || after === undefined) return undefined;
  if (before === 'True' && after !== 'True') return { type: 'event', eventType: 'Normal', reason: 'NodeNotReady', message: `Node ${name} status is now: NodeNotReady` };
  if (before !== 'True' && after === 'True') return { type: 'event', eventType: 'Normal', reason: 'NodeReady', message: `Node ${name} status is now: NodeReady` };
  return undefined;
}

/**
 * One node's health at `now`, given the controller's probe of it. Silent past the grace period:
 * the kubelet's conditions become Unknown. Then the readiness taints follow the Ready status
 * (False: not-ready, Unknown: unreachable, True: none), each as NoExecute and NoSchedule. A node
 * that never reported a Ready condition is left untainted until it goes silent. Pure.
 */
export function planNodeHealth(node: Node, probe: NodeProbe, now: number, timing: Pick<Timing, 'nodeMonitorGraceMs'>): NodeHealthPlan {
  const actions: NodeHealthAction[] = [];
  const stored = node.status?.conditions ?? [];
  const unknown = isSilent(probe, now, timing) ? markedUnknown(stored, now) : undefined;
  if (unknown) actions.push({ type: 'writeConditions', conditions: unknown });
  const ready = (unknown ?? stored).find((c) => c.type === 'Ready')?.status;
  if (ready) {
    const taints = taintsForReadiness(node.spec?.taints ?? [], ready, now);
    if (taints) actions.push({ type: 'writeTaints', taints });
  }
  const event = readinessEvent(node.metadata.name ?? '', probe.lastReady, ready);
  if (event) actions.push(event);
  return { ready, actions };
}

/**
 * For the hub: whether the node's Ready condition is the controller's verdict rather than the
 * node's own report. A bare heartbeat does not overturn it (Ready stays Unknown): the hub
 * should then ask the edge for a full node status, as a kubelet re-posts a status that differs
 * from the apiserver's.
 */
export function readyIsControllerVerdict(node: Node): boolean {
  const reason = node.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
  return reason === NODE_STATUS_UNKNOWN || reason === NEVER_UPDATED;
}
