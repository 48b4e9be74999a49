import type { Container, Pod } from '../../shared/types.js';
import type { ContainerInfo, Sandbox } from '../runtime/runtime.js';

/** What the runtime holds right now. */
export interface ActualPods {
  sandboxes: Sandbox[];
  containers: ContainerInfo[];
}

export type PodAction =
  /** Create the pod's sandbox (network namespace and IP). */
  | { type: 'runSandbox'; pod: Pod }
  /** Create and start one container of the pod, in the pod's sandbox. */
  | { type: 'startContainer'; pod: Pod; container: Container; attempt: number }
  /** Stop (if needed) and remove one container. */
  | { type: 'removeContainer'; containerId: string; reason: string }
  /** Stop and remove every container of a sandbox, then the sandbox itself. */
  | { type: 'killPod'; podUid: string; sandboxId: string; containerIds: string[]; reason: string };

/** Whether an exited container runs again under the pod's restartPolicy (default Always). */
export function shouldRestart(pod: Pod, exited: ContainerInfo): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (policy === 'Always') return true;
  if (policy === 'OnFailure') return (exited.exitCode ?? 0) !== 0;
  return false;
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
export function firstAttempt(pod: Pod, name: string): number {
  const reported = pod.status?.containerStatuses?.find((s) => s.name === name);
  return reported?.containerID ? reported.restartCount + 1 : 0;
}

/** Pods edged should be running: everything held that is not being deleted. */
export function isDesired(pod: Pod): boolean {
  return !pod.metadata.deletionTimestamp;
}

/**
 * The kubelet's decision, as a pure function: which sandboxes and containers to create,
 * restart or remove so that the runtime runs exactly the desired pods. `now` is for the
 * restart backoff to come.
 */
export function planPods(desired: Pod[], actual: ActualPods, _now: number): PodAction[] {
  const actions: PodAction[] = [];
  const wanted = new Map(desired.filter(isDesired).map((p) => [p.metadata.uid ?? '', p]));
  const sandboxOf = new Map<string, Sandbox>();
  for (const sandbox of [...actual.sandboxes].sort((a, b) => b.createdAt - a.createdAt)) {
    const pod = wanted.get(sandbox.podUid);
    if (pod && sandbox.state === 'ready' && !sandboxOf.has(sandbox.podUid)) {
      sandboxOf.set(sandbox.podUid, sandbox);
      continue;
    }
    const reason = !pod ? 'pod is no longer assigned to this node' : sandbox.state !== 'ready' ? 'sandbox is not ready' : 'duplicate sandbox';
    const containerIds = actual.containers.filter((c) => c.sandboxId === sandbox.id).map((c) => c.id);
    actions.push({ type: 'killPod', podUid: sandbox.podUid, sandboxId: sandbox.id, containerIds, reason });
  }
  const sandboxIds = new Set(actual.sandboxes.map((s) => s.id));
  for (const c of actual.containers) {
    if (!sandboxIds.has(c.sandboxId)) actions.push({ type: 'removeContainer', containerId: c.id, reason: 'its sandbox is gone' });
  }
  for (const pod of wanted.values()) {
    const sandbox = sandboxOf.get(pod.metadata.uid ?? '');
    if (!sandbox) {
      actions.push({ type: 'runSandbox', pod });
      for (const container of pod.spec.containers) actions.push({ type: 'startContainer', pod, container, attempt: firstAttempt(pod, container.name) });
      continue;
    }
    actions.push(...planContainers(pod, sandbox, actual.containers));
  }
  return actions;
}

function planContainers(pod: Pod, sandbox: Sandbox, containers: ContainerInfo[]): PodAction[] {
  const actions: PodAction[] = [];
  const names = new Set(pod.spec.containers.map((c) => c.name));
  for (const c of containers) {
    if (c.sandboxId === sandbox.id && !names.has(c.name)) actions.push({ type: 'removeContainer', containerId: c.id, reason: 'not in the pod spec' });
  }
  for (const container of pod.spec.containers) {
    const attempts = attemptsOf(containers, sandbox.id, container.name);
    const latest = attempts.at(-1);
    if (!latest) {
      actions.push({ type: 'startContainer', pod, container, attempt: firstAttempt(pod, container.name) });
      continue;
    }
    const restart = latest.state === 'exited' && shouldRestart(pod, latest);
    if (restart) actions.push({ type: 'startContainer', pod, container, attempt: latest.attempt + 1 });
    // Keep the newest container and the one before it (its end is the status' lastState).
    const keep = new Set(restart ? [latest.id] : attempts.slice(-2).map((c) => c.id));
    for (const old of attempts) {
      if (!keep.has(old.id)) actions.push({ type: 'removeContainer', containerId: old.id, reason: 'superseded by a newer attempt' });
    }
  }
  return actions;
}
