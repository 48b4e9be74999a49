import type { Pod } from '../../shared/types.js';
import { scaledMs, type Timing } from '../../shared/timing.js';
import type { ContainerInfo } from '../runtime/runtime.js';

/** The kubelet's CrashLoopBackOff ladder, in seconds of real time: 10 s doubling, capped at 300 s. */
export const BACKOFF_STEPS_S = [10, 20, 40, 80, 160, 300] as const;
/** A container that ran this long, or waited this long to start, runs again at once: its back-off has expired. */
export const BACKOFF_RESET_S = 600;

export type TimeScale = Pick<Timing, 'timeScale'>;

/** Whether an exited container runs again under the pod's restartPolicy (default Always). */
export function shouldRestart(pod: Pod, exited: ContainerInfo): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (policy === 'Always') return true;
  if (policy === 'OnFailure') return (exited.exitCode ?? 0) !== 0;
  return false;
}

/** An init container runs again only when it failed, and not under Never (Always counts as OnFailure). */
export function shouldRestartInit(pod: Pod, exited: ContainerInfo): boolean {
  return (pod.spec.restartPolicy ?? 'Always') !== 'Never' && (exited.exitCode ?? 0) !== 0;
}

/** The containers of one sandbox with this name, newest attempt last. */
export function attemptsOf(containers: ContainerInfo[], sandboxId: string, name: string): ContainerInfo[] {
  return containers.filter((c) => c.sandboxId === sandboxId && c.name === name).sort((a, b) => a.attempt - b.attempt || a.createdAt - b.createdAt);
}

/**
 * The attempt number of a container that has no attempt in the runtime: 0 for a new pod, but
 * after a node reboot (or a lost sandbox) the count goes on from the status edged last
 * reported, so restartCount keeps growing although the runtime forgot the old containers.
 */
export function firstAttempt(pod: Pod, name: string, init = false): number {
  const statuses = init ? pod.status?.initContainerStatuses : pod.status?.containerStatuses;
  const reported = statuses?.find((s) => s.name === name);
  return reported?.containerID ? reported.restartCount + 1 : 0;
}

const stepMs = (timing: TimeScale, i: number): number => Math.round(scaledMs(timing, BACKOFF_STEPS_S[i]!));

/**
 * Which rung of the ladder the back-off after `exited` is on, worked out from the runtime
 * alone (so it survives an edge restart), or undefined for none. As the kubelet, which keys a
 * back-off by the container's definition: a container runs again at once when no back-off is
 * held for it (its first exit, the first of a new image, after a node reboot) or when the one
 * held has expired (this attempt ran more than 10 minutes; or it waited more than
 * 10 minutes to start, the edge being down, as a restarted kubelet forgets its back-offs), and
 * from then on waits one rung above the wait that preceded this attempt (the gap between the
 * previous attempt's end and this one's creation).
 */
function rungOf(exited: ContainerInfo, previous: ContainerInfo | undefined, timing: TimeScale): number | undefined {
  if (previous?.state !== 'exited' || previous.finishedAt === undefined || previous.image !== exited.image) return undefined;
  const reset = Math.round(scaledMs(timing, BACKOFF_RESET_S));
  const ran = (exited.finishedAt ?? exited.createdAt) - exited.createdAt;
  const waited = exited.createdAt - previous.finishedAt;
  if (ran > reset || waited > reset) return undefined;
  let rung = 0;
  for (let i = 0; i < BACKOFF_STEPS_S.length; i++) if (waited >= stepMs(timing, i)) rung = i + 1;
  return Math.min(rung, BACKOFF_STEPS_S.length - 1);
}

export interface RestartBackoff {
  /** When the exited container may be started again (ms since the epoch). */
  at: number;
  /** The back-off in seconds of real time, for the CrashLoopBackOff message. */
  seconds: number;
}

/**
 * The CrashLoopBackOff of an exited container that is to run again, undefined when it runs
 * again at once; `previous` is the attempt before it.
 */
export function restartBackoff(exited: ContainerInfo, previous: ContainerInfo | undefined, timing: TimeScale): RestartBackoff | undefined {
  const rung = rungOf(exited, previous, timing);
  if (rung === undefined) return undefined;
  return { at: (exited.finishedAt ?? exited.createdAt) + stepMs(timing, rung), seconds: BACKOFF_STEPS_S[rung]! };
}
