import type { Container, Pod } from '../../shared/types.js';
import type { ContainerInfo } from '../runtime/runtime.js';
import type { ProbeStatuses } from '../prober/probe-status.js';
import type { PodAction } from './plan-pods.js';
import { attemptsOf, firstAttempt, restartBackoff, shouldRestart, shouldRestartInit, type TimeScale } from './restart-policy.js';
import { stopGraceMs } from './stop-grace.js';

interface PlanInput {
  pod: Pod;
  sandboxId: string;
  /** The runtime's containers (of every pod; filtered by sandbox). */
  containers: ContainerInfo[];
  now: number;
  timing: TimeScale;
  /** What the probes say, by container id. */
  probes?: ProbeStatuses;
}

/** Whether a pod's init containers have all completed: each exited 0, or an app container already exists. */
export function initDone(pod: Pod, sandboxId: string, containers: ContainerInfo[]): boolean {
  if (pod.spec.containers.some((c) => attemptsOf(containers, sandboxId, c.name).length > 0)) return true;
  return (pod.spec.initContainers ?? []).every((c) => {
    const latest = attemptsOf(containers, sandboxId, c.name).at(-1);
    return latest?.state === 'exited' && latest.exitCode === 0;
  });
}

/**
 * Created and never started (the edge was killed between the two): it will never run. As the
 * kubelet does (ShouldContainerBeRestarted: "always restart container in the created state"),
 * a new attempt replaces it at once, whatever the restart policy, and it is removed.
 */
const neverStarted = (c: ContainerInfo): boolean => c.state === 'created' && !c.starting;

function replaceNeverStarted(input: PlanInput, container: Container, attempts: ContainerInfo[]): PodAction[] {
  const stale = attempts.at(-1)!;
  // Kept: the attempt that ran before it (its end is the status' lastState and the back-off's rung).
  const older = attempts.slice(0, -2).map((c): PodAction => ({ type: 'removeContainer', containerId: c.id, reason: 'superseded by a newer attempt' }));
  return [
    { type: 'removeContainer', containerId: stale.id, reason: 'created but never started' },
    { type: 'startContainer', pod: input.pod, container, attempt: stale.attempt + 1 },
    ...older,
  ];
}

/**
 * The kubelet's containerChanged, for what a pod update may change (ValidatePodUpdate): the
 * image. An app container whose image is not the spec's runs another definition.
 */
const definitionChanged = (c: ContainerInfo, container: Container): boolean => c.image !== (container.image ?? '');

/**
 * A running app container of another definition is killed ("definition changed, will be
 * restarted", whatever the restart policy) and the new one started in the same sync, as the
 * kubelet does; the older attempts go.
 */
function restartChanged(input: PlanInput, container: Container, attempts: ContainerInfo[]): PodAction[] {
  const latest = attempts.at(-1)!;
  return [
    { type: 'killContainer', containerId: latest.id, graceMs: stopGraceMs(input.pod, input.timing), reason: 'definition changed', definitionChanged: true },
    { type: 'startContainer', pod: input.pod, container, attempt: latest.attempt + 1 },
    ...attempts.slice(0, -1).map((c): PodAction => ({ type: 'removeContainer', containerId: c.id, reason: 'superseded by a newer attempt' })),
  ];
}

/**
 * One container: start it if it has no attempt (or only one that never started); kill it when
 * it failed its liveness or startup probe, or restart it when its definition changed; once it
 * exited and is to run again, restart it when its back-off is over (at once after its first
 * exit, and for a new definition: the kubelet's back-off is per definition), else say when to
 * look again (a `backOff` action).
 */
function planContainer(input: PlanInput, container: Container, init: boolean): PodAction[] {
  const { pod, now } = input;
  const attempts = attemptsOf(input.containers, input.sandboxId, container.name);
  const latest = attempts.at(-1);
  if (!latest) return [{ type: 'startContainer', pod, container, attempt: firstAttempt(pod, container.name, init) }];
  if (neverStarted(latest)) return replaceNeverStarted(input, container, attempts);
  if (!init && latest.state !== 'exited' && definitionChanged(latest, container)) return restartChanged(input, container, attempts);
  const actions: PodAction[] = [];
  const unhealthy = latest.state === 'running' && !init ? input.probes?.get(latest.id)?.unhealthy : undefined;
  if (unhealthy) {
    const failed = container.startupProbe && input.probes?.get(latest.id)?.started !== true ? container.startupProbe : container.livenessProbe;
    actions.push({ type: 'killContainer', containerId: latest.id, graceMs: stopGraceMs(pod, input.timing, failed), reason: unhealthy });
  }
  let restarted = false;
  if (latest.state === 'exited' && (init ? shouldRestartInit(pod, latest) : shouldRestart(pod, latest))) {
    const backoff = restartBackoff(latest, attempts.at(-2), input.timing);
    restarted = !backoff || now >= backoff.at || (!init && definitionChanged(latest, container));
    actions.push(backoff && !restarted ? { type: 'backOff', pod, container, until: backoff.at } : { type: 'startContainer', pod, container, attempt: latest.attempt + 1 });
  }
  // Keep the newest container and the one before it (its end is the status' lastState and the back-off's rung).
  const keep = new Set(restarted ? [latest.id] : attempts.slice(-2).map((c) => c.id));
  for (const old of attempts) {
    if (!keep.has(old.id)) actions.push({ type: 'removeContainer', containerId: old.id, reason: 'superseded by a newer attempt' });
  }
  return actions;
}

/** The first init container not yet completed, planned; the later ones wait for it. */
function planInit(input: PlanInput): PodAction[] {
  for (const container of input.pod.spec.initContainers ?? []) {
    const latest = attemptsOf(input.containers, input.sandboxId, container.name).at(-1);
    if (latest?.state === 'exited' && latest.exitCode === 0) continue;
    return planContainer(input, container, true);
  }
  return [];
}

/**
 * The containers of a pod whose sandbox exists (or is being created: `containers` empty):
 * drop the ones not in the spec, run the init containers one at a time, in order, to
 * completion, then start and restart the app containers.
 */
export function planContainers(input: PlanInput): PodAction[] {
  const { pod, sandboxId } = input;
  const actions: PodAction[] = [];
  const names = new Set([...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name));
  for (const c of input.containers) {
    if (c.sandboxId === sandboxId && !names.has(c.name)) actions.push({ type: 'removeContainer', containerId: c.id, reason: 'not in the pod spec' });
  }
  if (!initDone(pod, sandboxId, input.containers)) return [...actions, ...planInit(input)];
  for (const container of pod.spec.containers) actions.push(...planContainer(input, container, false));
  return actions;
}
