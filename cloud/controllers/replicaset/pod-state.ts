import type { Pod } from '../../../shared/types.js';

/** What a controller reads from a pod: active (counts toward replicas), ready, available. */

/** Not terminal and not being deleted: it counts toward a workload's replicas. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** When the pod last became Ready (ms), or undefined when it is not ready. */
export function readySince(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return undefined;
  const at = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return Number.isNaN(at) ? 0 : at;
}

/** Ready for at least `minReadyMs` (already scaled to the timing profile). */
export function isPodAvailable(pod: Pod, minReadyMs: number, now: number): boolean {
  const since = readySince(pod);
  if (since === undefined) return false;
  return minReadyMs <= 0 || since + minReadyMs <= now;
}

/** Milliseconds until the first ready-but-not-yet-available pod becomes available, if any. */
export function nextAvailableIn(pods: readonly Pod[], minReadyMs: number, now: number): number | undefined {
  if (minReadyMs <= 0) return undefined;
  let soonest: number | undefined;
  for (const pod of pods) {
    const since = readySince(pod);
    if (since === undefined || since + minReadyMs <= now) continue;
    const wait = since + minReadyMs - now;
    soonest = soonest === undefined ? wait : Math.min(soonest, wait);
  }
  return soonest;
}

