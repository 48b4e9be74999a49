import type { Container, Pod } from '../../shared/types.js';
import type { ProbeStatuses } from '../prober/probe-status.js';
import type { ContainerInfo, Sandbox } from '../runtime/runtime.js';
import { planContainers } from './plan-containers.js';
import type { TimeScale } from './restart-policy.js';

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
  /**
   * Stop a running container that failed its liveness or startup probe (the restart rules take
   * it from there), or whose definition changed (a startContainer follows).
   */
  | { type: 'killContainer'; containerId: string; graceMs: number; reason: string; definitionChanged?: true }
  /** Stop (if needed) and remove one container. */
  | { type: 'removeContainer'; containerId: string; reason: string }
  /** Stop and remove every container of a sandbox, then the sandbox itself. */
  | { type: 'killPod'; podUid: string; sandboxId: string; containerIds: string[]; reason: string }
  /** Nothing to do yet: an exited container waits out its CrashLoopBackOff until `until`; edged looks again then. */
  | { type: 'backOff'; pod: Pod; container: Container; until: number };

/** Pods edged should be running: everything held that is not being deleted. */
export function isDesired(pod: Pod): boolean {
  return !pod.metadata.deletionTimestamp;
}

/**
 * The kubelet's decision, as a pure function: which sandboxes and containers to create,
 * restart or remove so that the runtime runs exactly the desired pods. `now` and the time
 * scale decide whether an exited container's restart back-off is over; `probes` which
 * running containers failed their liveness or startup probe.
 */
export function planPods(desired: Pod[], actual: ActualPods, now: number, timing: TimeScale = { timeScale: 1 }, probes?: ProbeStatuses): PodAction[] {
  const actions: PodAction[] = [];
  const wanted = new Map(desired.filter(isDesired).map((p) => [p.metadata.uid ?? '', p]));
  const sandboxOf = new Map<string, Sandbox>();
  const inSandbox = containersBySandbox(actual.containers);
  for (const sandbox of [...actual.sandboxes].sort((a, b) => b.createdAt - a.createdAt)) {
    const pod = wanted.get(sandbox.podUid);
    if (pod && sandbox.state === 'ready' && !sandboxOf.has(sandbox.podUid)) {
      sandboxOf.set(sandbox.podUid, sandbox);
      continue;
    }
    const reason = !pod ? 'pod is no longer assigned to this node' : sandbox.state !== 'ready' ? 'sandbox is not ready' : 'duplicate sandbox';
    const containerIds = (inSandbox.get(sandbox.id) ?? []).map((c) => c.id);
    actions.push({ type: 'killPod', podUid: sandbox.podUid, sandboxId: sandbox.id, containerIds, reason });
  }
  const sandboxIds = new Set(actual.sandboxes.map((s) => s.id));
  for (const c of actual.containers) {
    if (!sandboxIds.has(c.sandboxId)) actions.push({ type: 'removeContainer', containerId: c.id, reason: 'its sandbox is gone' });
  }
  for (const pod of wanted.values()) {
    const sandbox = sandboxOf.get(pod.metadata.uid ?? '');
    if (!sandbox) {
      actions.push({ type: 'runSandbox', pod }, ...planContainers({ pod, sandboxId: '', containers: [], now, timing }));
      continue;
    }
    actions.push(...planContainers({ pod, sandboxId: sandbox.id, containers: inSandbox.get(sandbox.id) ?? [], now, timing, probes }));
  }
  return actions;
}

/**
 * What the runtime holds for the pods in `held` only: the sandboxes of other pods, and their
 * containers, are left out (planPods then leaves them alone rather than killing them).
 */
export function onlyHeldPods(actual: ActualPods, held: readonly Pod[]): ActualPods {
  const uids = new Set(held.map((p) => p.metadata.uid));
  const sandboxes = actual.sandboxes.filter((s) => uids.has(s.podUid));
  const kept = new Set(sandboxes.map((s) => s.id));
  return { sandboxes, containers: actual.containers.filter((c) => kept.has(c.sandboxId)) };
}

/** The runtime's containers grouped by sandbox, so that each pod looks only at its own (a sync stays linear in the pods held). */
export function containersBySandbox(containers: readonly ContainerInfo[]): Map<string, ContainerInfo[]> {
  const out = new Map<string, ContainerInfo[]>();
  for (const c of containers) {
    const list = out.get(c.sandboxId);
    if (list) list.push(c);
    else out.set(c.sandboxId, [c]);
  }
  return out;
}

/** The earliest moment a container waiting out its back-off may restart: edged syncs again then. */
export function nextRestartAt(actions: PodAction[]): number | undefined {
  const times = actions.flatMap((a) => (a.type === 'backOff' ? [a.until] : []));
  return times.length > 0 ? Math.min(...times) : undefined;
}
