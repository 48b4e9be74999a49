import type { Timing } from '../../../shared/timing.js';
import { objectKey, type Node, type Pod, type Taint } from '../../../shared/types.js';
import type { EventType } from '../events.js';
import { planEvictions } from './evictions.js';

/** What the taint manager remembers of a node between passes. */
export interface TaintManagerMemory {
  /** Pods with an eviction deadline after the last pass, by "namespace/name". */
  scheduled: ReadonlyMap<string, Pod>;
  /** When each NoExecute taint without timeAdded was first seen ("key:effect" → ms). */
  taintSeen: ReadonlyMap<string, number>;
  /** The invalid autonomy annotation already warned about. */
  warned?: string | undefined;
}

export type TaintManagerAction =
  | { type: 'event'; pod: Pod; eventType: EventType; reason: string; message: string }
  | { type: 'warnInvalidAutonomy'; node: string; value: string }
  /** Delete these pods (each only if it is still the same pod). */
  | { type: 'evict'; pods: Pod[] }
  /** Plan the node again at `at` (undefined: no deadline ahead, cancel any wake-up). */
  | { type: 'wakeAt'; at: number | undefined };

export interface TaintManagerInput {
  memory: TaintManagerMemory;
  /** The node as the health pass left it (its readiness taints written). */
  node: Node;
  /** The pods bound to it. */
  pods: readonly Pod[];
  /** Whether the pod is still in the informer's cache: a pod gone has no deletion to cancel. */
  indexed(pod: Pod): boolean;
  now: number;
  timing: Pick<Timing, 'timeScale'>;
}

const taintId = (t: Taint): string => `${t.key}:${t.effect}`;

/** The first-seen times of the node's NoExecute taints that carry no timeAdded: kept, added at `now`, or dropped with the taint. Pure. */
export function taintsFirstSeen(seen: ReadonlyMap<string, number>, node: Node, now: number): Map<string, number> {
  const next = new Map<string, number>();
  for (const t of node.spec?.taints ?? []) {
    if (t.effect === 'NoExecute' && !t.timeAdded) next.set(taintId(t), seen.get(taintId(t)) ?? now);
  }
  return next;
}

/**
 * One pass of the NoExecute taint manager over a node: which pods to evict now, which earlier
 * deadlines were lifted (a "Cancelling deletion" Event for each pod still there), a warning for
 * an invalid autonomy annotation (once per value), and when to look again. Pure.
 */
export function planTaintManager(input: TaintManagerInput): { memory: TaintManagerMemory; actions: TaintManagerAction[] } {
  const { memory, node, pods, now } = input;
  const taintSeen = taintsFirstSeen(memory.taintSeen, node, now);
  const plan = planEvictions(node, pods, now, input.timing, (t) => taintSeen.get(taintId(t)));
  const actions: TaintManagerAction[] = [];
  for (const [key, pod] of memory.scheduled) {
    if (plan.deadlines.has(key) || !input.indexed(pod)) continue;
    actions.push({ type: 'event', pod, eventType: 'Normal', reason: 'TaintManagerEviction', message: `Cancelling deletion of Pod ${key}` });
  }
  const invalid = plan.invalidAutonomy;
  if (invalid !== undefined && invalid !== memory.warned) actions.push({ type: 'warnInvalidAutonomy', node: node.metadata.name ?? '', value: invalid });
  if (plan.evict.length > 0) actions.push({ type: 'evict', pods: plan.evict });
  actions.push({ type: 'wakeAt', at: plan.nextAt });
  const evicted = new Set(plan.evict);
  const scheduled = new Map(pods.filter((p) => plan.deadlines.has(objectKey(p.metadata)) && !evicted.has(p)).map((p) => [objectKey(p.metadata), p]));
  return { memory: { scheduled, taintSeen, warned: invalid }, actions };
}

/** A node worth planning again when one of its pods changes: pods are marked not ready or evicted only there. Pure. */
export function replansOnPodChange(node: Node | undefined): boolean {
  if (!node) return false;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return (ready !== undefined && ready !== 'True') || (node.spec?.taints ?? []).some((t) => t.effect === 'NoExecute');
}
