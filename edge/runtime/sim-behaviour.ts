import type { ContainerConfig, ContainerInfo } from './runtime.js';
import type { CommandEnd } from './sim-command.js';

/**
 * How a simulated container behaves, read from its pod's annotations (docs/runtime-sim.md):
 *   kedge.io/start-delay  time from start to running (default: timing.containerStartMs)
 *   kedge.io/crash-after  time from running to exit (default: never exits)
 *   kedge.io/exit-code    the exit code when it exits (default 1)
 *   kedge.io/ready-after  time from running to ready (default 0)
 *   kedge.io/ready-flap   once ready, readiness flips every this long (default: never flips)
 *   kedge.io/image-pull-delay  how long a simulated image pull takes (default 0; edge/edged/image-pulls.ts)
 */
export const ANNOTATIONS = {
  startDelay: 'kedge.io/start-delay',
  crashAfter: 'kedge.io/crash-after',
  exitCode: 'kedge.io/exit-code',
  readyAfter: 'kedge.io/ready-after',
  readyFlap: 'kedge.io/ready-flap',
  imagePullDelay: 'kedge.io/image-pull-delay',
} as const;

export interface SimBehaviour {
  startDelayMs: number;
  crashAfterMs?: number;
  exitCode: number;
  readyAfterMs: number;
  /** Once ready, it is ready for this long, then not ready for as long, and so on. */
  readyFlapMs?: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration ("500ms", "2s", "1m30s", "1.5h"); undefined when malformed. */
export function parseDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(total);
}

/**
 * The behaviour its pod's annotations ask for, else how its command ends (`command`, from
 * sim-command.ts). Durations are cluster time, like every other duration in kedge: divided by
 * `timeScale` (--time-scale).
 */
export function behaviourFrom(annotations: Record<string, string> | undefined, defaultStartMs: number, timeScale = 1, command?: CommandEnd): SimBehaviour {
  const a = annotations ?? {};
  const duration = (key: string): number | undefined => {
    const ms = parseDuration(a[key]);
    return ms === undefined ? undefined : Math.round(ms / timeScale);
  };
  // A container annotated to crash ends as annotated, whatever its command says.
  if (duration(ANNOTATIONS.crashAfter) !== undefined) command = undefined;
  const code = Number(a[ANNOTATIONS.exitCode]);
  const annotatedCode = Number.isInteger(code) && code >= 0 && code <= 255 && a[ANNOTATIONS.exitCode]?.trim() ? code : undefined;
  const behaviour: SimBehaviour = {
    startDelayMs: duration(ANNOTATIONS.startDelay) ?? defaultStartMs,
    exitCode: annotatedCode ?? command?.exitCode ?? 1,
    readyAfterMs: duration(ANNOTATIONS.readyAfter) ?? 0,
  };
  const commandMs = command === undefined ? undefined : Math.round(command.afterMs / timeScale);
  const crashAfterMs = duration(ANNOTATIONS.crashAfter) ?? commandMs;
  if (crashAfterMs !== undefined) behaviour.crashAfterMs = crashAfterMs;
  const readyFlapMs = duration(ANNOTATIONS.readyFlap);
  if (readyFlapMs) behaviour.readyFlapMs = readyFlapMs;
  return behaviour;
}

/** What the sim runtime remembers about a container; its state is derived from time. */
export interface SimContainerRecord extends Pick<ContainerInfo, 'id' | 'sandboxId' | 'podUid' | 'name' | 'attempt' | 'image' | 'createdAt' | 'mounts'> {
  behaviour: SimBehaviour;
  startRequestedAt?: number;
  stoppedAt?: number;
  /** What its simulated shell sees (exec): its env and working directory; `stdin`: attach -i gets the shell. */
  shell?: Pick<ContainerConfig, 'env' | 'workingDir' | 'stdin'>;
}

/** The container as it is at `now`: a pure function of its record and the time. */
export function containerAt(record: SimContainerRecord, now: number): ContainerInfo {
  const { behaviour: b } = record;
  const base: ContainerInfo = {
    id: record.id,
    sandboxId: record.sandboxId,
    podUid: record.podUid,
    name: record.name,
    attempt: record.attempt,
    image: record.image,
    state: 'created',
    createdAt: record.createdAt,
    ready: false,
    ...(record.mounts ? { mounts: record.mounts } : {}),
  };
  const stoppedAt = record.stoppedAt ?? Infinity;
  const runningAt = record.startRequestedAt === undefined ? Infinity : record.startRequestedAt + b.startDelayMs;
  if (runningAt > now || runningAt >= stoppedAt) {
    // Never got to run: still starting, or stopped before it started.
    if (stoppedAt <= now) return { ...base, state: 'exited', finishedAt: stoppedAt, exitCode: 0, reason: 'Completed' };
    return record.startRequestedAt === undefined ? base : { ...base, starting: true };
  }
  const crashAt = b.crashAfterMs === undefined ? Infinity : runningAt + b.crashAfterMs;
  const finishedAt = Math.min(crashAt, stoppedAt);
  if (finishedAt <= now) {
    const exitCode = crashAt <= stoppedAt ? b.exitCode : 0;
    return { ...base, state: 'exited', startedAt: runningAt, finishedAt, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' };
  }
  return { ...base, state: 'running', startedAt: runningAt, ready: readinessAt(b, runningAt, now).ready };
}

/** Readiness of a container running since `runningAt`, and when it next changes (Infinity: never). */
function readinessAt(b: SimBehaviour, runningAt: number, now: number): { ready: boolean; changesAt: number } {
  const readyAt = runningAt + b.readyAfterMs;
  if (now < readyAt) return { ready: false, changesAt: readyAt };
  if (!b.readyFlapMs) return { ready: true, changesAt: Infinity };
  const flips = Math.floor((now - readyAt) / b.readyFlapMs);
  return { ready: flips % 2 === 0, changesAt: readyAt + (flips + 1) * b.readyFlapMs };
}

/**
 * The next time after `now` at which a started container comes up (runs, or exits at once)
 * or its readiness changes (ready, or a flip of `ready-flap`); undefined when none is ahead
 * (not started, stopped, running and steadily ready). Later exits are left out on purpose:
 * edged notices them on its periodic sync.
 */
export function nextStartOf(record: SimContainerRecord, now: number): number | undefined {
  if (record.startRequestedAt === undefined) return undefined;
  const b = record.behaviour;
  const stoppedAt = record.stoppedAt ?? Infinity;
  const runningAt = record.startRequestedAt + b.startDelayMs;
  if (runningAt > now) return runningAt < stoppedAt ? runningAt : undefined;
  const { changesAt } = readinessAt(b, runningAt, now);
  return changesAt < Math.min(stoppedAt, runningAt + (b.crashAfterMs ?? Infinity)) ? changesAt : undefined;
}
