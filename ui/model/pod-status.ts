import type { ContainerStatus, Pod } from './kube.js';

/**
 * kubectl get pods' STATUS column, as the cloud's table printer gives it to kubectl (kubectl's
 * printPod): an init container's trouble or progress, else the last container's waiting or
 * terminated reason, else the pod's reason or phase; a pod being deleted is Terminating.
 */
export function kubectlStatus(pod: Pod): string {
  if (pod.metadata.deletionTimestamp) return pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return initializing(pod) ?? containersReason(pod);
}

/** kubectl's READY column: containers whose status says ready, of the pod's containers. */
export function kubectlReady(pod: Pod): string {
  const statuses = pod.status?.containerStatuses ?? [];
  return `${statuses.filter((s) => s.ready).length}/${pod.spec?.containers?.length ?? statuses.length}`;
}

function containersReason(pod: Pod): string {
  let reason = pod.status?.reason || pod.status?.phase || 'Pending';
  let hasRunning = false;
  for (const s of [...(pod.status?.containerStatuses ?? [])].reverse()) {
    const ended = stoppedReason(s);
    if (ended) reason = ended;
    else if (s.state?.running && s.ready) hasRunning = true;
  }
  if (reason !== 'Completed' || !hasRunning) return reason;
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
}

/** A waiting container's reason, or a terminated one's (its exit code when it gives none). */
function stoppedReason(s: ContainerStatus): string | undefined {
  const state = s.state ?? {};
  if (state.waiting?.reason) return state.waiting.reason;
  if (state.terminated) return state.terminated.reason || `ExitCode:${state.terminated.exitCode ?? '?'}`;
  return undefined;
}

/** `Init:<reason>` or `Init:<done>/<all>` while the pod initializes; undefined once it has. */
function initializing(pod: Pod): string | undefined {
  if (pod.status?.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True')) return undefined;
  const statuses = pod.status?.initContainerStatuses ?? [];
  const done = statuses.findIndex((s) => s.state?.terminated?.exitCode !== 0);
  if (done < 0) return undefined;
  const trouble = stoppedReason(statuses[done]!);
  return trouble && trouble !== 'PodInitializing' ? `Init:${trouble}` : `Init:${done}/${pod.spec?.initContainers?.length ?? statuses.length}`;
}
