import type { Deployment, IntOrPercent } from '../../../shared/apps-types.js';

/** maxSurge and maxUnavailable in pods, as kube's deploymentutil: surge rounds up, unavailable down. */

export function desiredReplicas(d: Deployment): number {
  return d.spec.replicas ?? 1;
}

export function isRollingUpdate(d: Deployment): boolean {
  return (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** An int as is, or a percentage of `total` rounded up or down. */
export function scaledValue(value: IntOrPercent, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const percent = parseInt(value.replace(/%$/, ''), 10);
  if (Number.isNaN(percent)) return 0;
  const exact = (percent * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** Both limits; when both come out 0, one pod may be unavailable (else a rollout could never move). */
export function resolveFenceposts(d: Deployment): { surge: number; unavailable: number } {
  const rolling = d.spec.strategy?.rollingUpdate ?? {};
  const total = desiredReplicas(d);
  const surge = scaledValue(rolling.maxSurge ?? '25%', total, true);
  const unavailable = scaledValue(rolling.maxUnavailable ?? '25%', total, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  const total = desiredReplicas(d);
  if (!isRollingUpdate(d) || total === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, total);
}
