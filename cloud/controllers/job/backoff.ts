import type { Pod } from '../../../shared/types.js';
import { finishedAt } from './pods.js';

/** Kube's pod failure back-off for a Job: 10 s after the first failure, doubling, at most 10 minutes (cluster time). */
export const POD_FAILURE_BACKOFF_S = 10;
export const MAX_POD_FAILURE_BACKOFF_S = 600;

/**
 * How long (ms) a new pod must wait: failures since the last success set the delay
 * (10 s, 20 s, 40 s, … capped), counted from the last failure. Derived from the pods themselves,
 * so a restarted controller keeps the back-off. `scale` is the timing profile's time scale.
 */
export function backoffRemainingMs(finished: readonly { pod: Pod; failed: boolean }[], now: number, scale: number): number {
  const lastSuccess = Math.max(0, ...finished.filter((f) => !f.failed).map((f) => finishedAt(f.pod)));
  const failures = finished.filter((f) => f.failed && finishedAt(f.pod) >= lastSuccess).map((f) => finishedAt(f.pod));
  if (failures.length === 0) return 0;
  let delayS = POD_FAILURE_BACKOFF_S;
  for (let i = 1; i < failures.length; i++) delayS = Math.min(delayS * 2, MAX_POD_FAILURE_BACKOFF_S);
  const remaining = (delayS * 1000) / scale - (now - Math.max(...failures));
  return remaining > 0 ? remaining : 0;
}
