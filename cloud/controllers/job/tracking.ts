import type { Job, UncountedTerminatedPods } from '../../../shared/batch-types.js';
import type { Pod } from '../../../shared/types.js';
import { hasTrackingFinalizer, isPodFailed } from './pods.js';

/**
 * Counting each finished pod exactly once, as kube does with the job-tracking finalizer:
 * (1) a finished pod that still has the finalizer goes into status.uncountedTerminatedPods,
 * (2) its finalizer is removed, (3) once the pod is seen without it (or gone), its uid leaves
 * uncountedTerminatedPods and the counter goes up. A status re-sent after reconnect finds the
 * pod without the finalizer and counts nothing again. Pure.
 */
export interface Tally {
  /** status.succeeded / failed after moving what is done into them. */
  succeeded: number;
  failed: number;
  /** What stays in (or newly enters) uncountedTerminatedPods. */
  uncounted: { succeeded: string[]; failed: string[] };
  /** Pods whose finalizer is to be removed now. */
  release: Pod[];
  /** Finished pods of this Job, whether failed: for the back-off. */
  finished: { pod: Pod; failed: boolean }[];
}

/** `finishing`: the Job is about to end (or being deleted), so every pod still holding the finalizer is counted now. */
export function tally(job: Job, owned: readonly Pod[], finishing: boolean): Tally {
  const status = job.status ?? {};
  const was: UncountedTerminatedPods = status.uncountedTerminatedPods ?? {};
  const byUid = new Map(owned.map((p) => [p.metadata.uid!, p]));
  const stillHeld = (uid: string): boolean => {
    const pod = byUid.get(uid);
    return pod !== undefined && hasTrackingFinalizer(pod);
  };
  const out: Tally = { succeeded: status.succeeded ?? 0, failed: status.failed ?? 0, uncounted: { succeeded: [], failed: [] }, release: [], finished: [] };
  for (const [kind, uids] of [['succeeded', was.succeeded ?? []], ['failed', was.failed ?? []]] as const) {
    for (const uid of uids) {
      if (stillHeld(uid)) {
        out.uncounted[kind].push(uid);
        out.release.push(byUid.get(uid)!);
      } else out[kind]++;
    }
  }
  const seen = new Set([...(was.succeeded ?? []), ...(was.failed ?? [])]);
  for (const pod of owned) {
    const succeeded = pod.status?.phase === 'Succeeded';
    const failed = !succeeded && (isPodFailed(pod, job) || pod.status?.phase === 'Failed');
    if (succeeded || failed) out.finished.push({ pod, failed });
    if (!hasTrackingFinalizer(pod) || seen.has(pod.metadata.uid!)) continue;
    if (!succeeded && !failed && !finishing) continue;
    out.uncounted[succeeded ? 'succeeded' : 'failed'].push(pod.metadata.uid!);
    out.release.push(pod);
  }
  return out;
}

/** Succeeded and failed as the Job's conditions see them: counted plus not yet counted. */
export const totalSucceeded = (t: Tally): number => t.succeeded + t.uncounted.succeeded.length;
export const totalFailed = (t: Tally): number => t.failed + t.uncounted.failed.length;
