import type { Condition } from './cluster-object-types.js';

type WantedCondition = Pick<Condition, 'type' | 'status' | 'reason' | 'message'>;

export const DISRUPTION_ALLOWED = 'DisruptionAllowed';

/** UpdateDisruptionAllowedCondition: True SufficientPods while a disruption is allowed, else False InsufficientPods. */
export function allowedCondition(disruptionsAllowed: number): WantedCondition {
  return disruptionsAllowed > 0
    ? { type: DISRUPTION_ALLOWED, status: 'True', reason: 'SufficientPods', message: '' }
    : { type: DISRUPTION_ALLOWED, status: 'False', reason: 'InsufficientPods', message: '' };
}

/** apimeta.SetStatusCondition: the condition replaced; its transition time (`now`, RFC 3339) moves only when its status does. */
export function withCondition(conditions: readonly Condition[] | undefined, wanted: WantedCondition, now: string): Condition[] {
  const current = (conditions ?? []).find((c) => c.type === wanted.type);
  const lastTransitionTime = current && current.status === wanted.status ? current.lastTransitionTime : now;
  return [...(conditions ?? []).filter((c) => c !== current), { ...wanted, lastTransitionTime }];
}
