import type { Pod } from './kube.js';
import { objectKey } from './objects.js';

/** One pod as a table row: phase, why it is not simply its phase, readiness and restarts. */
export interface PodRow {
  key: string;
  namespace: string;
  name: string;
  node?: string;
  phase: string;
  /** Terminating, CrashLoopBackOff, Evicted, not ready (as the cloud marks the pods of an unreachable node), …: empty when the phase says it all. */
  detail: string;
  /** Ready containers of all, "1/1". */
  ready: string;
  restarts: number;
}

export function podRow(pod: Pod): PodRow {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = Math.max(statuses.length, pod.spec?.containers?.length ?? 0);
  const waiting = statuses.map((s) => s.state?.waiting?.reason).find((r) => r && r !== 'ContainerCreating');
  const row: PodRow = {
    key: pod.metadata.uid ?? objectKey(pod),
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name ?? '',
    phase: pod.status?.phase ?? 'Pending',
    detail: pod.metadata.deletionTimestamp ? 'Terminating' : (waiting ?? pod.status?.reason ?? (notReady(pod) ? 'not ready' : '')),
    ready: `${statuses.filter((s) => s.ready).length}/${total}`,
    restarts: statuses.reduce((sum, s) => sum + (s.restartCount ?? 0), 0),
  };
  if (pod.spec?.nodeName) row.node = pod.spec.nodeName;
  return row;
}

/** Running yet not Ready: what the cloud marks when nobody can vouch for a pod. */
function notReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true;
}

export function byNamespaceAndName(a: PodRow, b: PodRow): number {
  return a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
}

/** The pods bound to `node` (or, with undefined, to no node yet), as rows in name order. */
export function podsOn(pods: Iterable<Pod>, node: string | undefined): PodRow[] {
  const rows: PodRow[] = [];
  for (const pod of pods) if (pod.spec?.nodeName === node) rows.push(podRow(pod));
  return rows.sort(byNamespaceAndName);
}
