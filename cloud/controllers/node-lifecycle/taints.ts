import type { Taint, Toleration } from '../../../shared/types.js';

/** The taints the node lifecycle controller owns (Kubernetes' well-known node taints). */
export const NOT_READY_TAINT_KEY = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';

/** KubeEdge's node annotation: how long pods may stay on an unreachable node (Go duration, "0" = for ever). */
export const AUTONOMY_DURATION_ANNOTATION = 'kedge.io/autonomy-duration';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

const OWNED_EFFECTS = new Set<Taint['effect']>(['NoExecute', 'NoSchedule']);
const OWNED_KEYS = new Set([NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY]);

/** The taint key a node with this Ready status should carry (none for Ready=True). */
export function readinessTaintKey(ready: ConditionStatus): string | undefined {
  if (ready === 'False') return NOT_READY_TAINT_KEY;
  if (ready === 'Unknown') return UNREACHABLE_TAINT_KEY;
  return undefined;
}

function owned(taint: Taint): boolean {
  return OWNED_KEYS.has(taint.key) && OWNED_EFFECTS.has(taint.effect);
}

/**
 * The node's taints with the readiness taints brought in line with `ready`, or undefined when
 * they already are. Kept taints keep their timeAdded (eviction deadlines count from it); a new
 * NoExecute taint gets `now`, to the millisecond so that a scaled profile's deadlines stay exact.
 */
export function taintsForReadiness(taints: readonly Taint[], ready: ConditionStatus, now: number): Taint[] | undefined {
  const key = readinessTaintKey(ready);
  const kept = taints.filter((t) => !owned(t) || t.key === key);
  const added: Taint[] = [];
  if (key) {
    if (!kept.some((t) => t.key === key && t.effect === 'NoExecute')) added.push({ key, effect: 'NoExecute', timeAdded: new Date(now).toISOString() });
    if (!kept.some((t) => t.key === key && t.effect === 'NoSchedule')) added.push({ key, effect: 'NoSchedule' });
  }
  if (added.length === 0 && kept.length === taints.length) return undefined;
  return [...kept, ...added];
}

/** Kubernetes' Toleration.ToleratesTaint: effect and key match when set; Exists ignores the value. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  if (toleration.operator !== undefined && toleration.operator !== 'Equal') return false;
  return (toleration.value ?? '') === (taint.value ?? '');
}
