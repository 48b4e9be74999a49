import { scaledMs, type Timing } from '../../shared/timing.js';
import type { Pod, Probe } from '../../shared/types.js';

export const DEFAULT_TERMINATION_GRACE_SECONDS = 30;
/** The kubelet never gives a container less than this between SIGTERM and SIGKILL. */
export const MINIMUM_GRACE_SECONDS = 2;

/**
 * How long a container of `pod` may take to stop after SIGTERM, as the kubelet decides it:
 * the deletion's grace period for a pod being deleted, else the failing probe's own grace
 * period (a liveness or startup kill), else `spec.terminationGracePeriodSeconds` (30 s), never
 * under 2 s. A pod the edge no longer holds was deleted outright (grace 0, so 2 s). Real-time
 * seconds, in the profile's milliseconds.
 */
export function stopGraceMs(pod: Pod | undefined, timing: Pick<Timing, 'timeScale'>, failedProbe?: Probe): number {
  const seconds = pod === undefined ? 0 : (pod.metadata.deletionGracePeriodSeconds ?? failedProbe?.terminationGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS);
  return Math.round(scaledMs(timing, Math.max(MINIMUM_GRACE_SECONDS, seconds)));
}
