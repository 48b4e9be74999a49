import type { Pod } from './kube.js';
import { objectKey } from './objects.js';
import { kubectlReady, kubectlStatus } from './pod-status.js';

/** One pod as a table row, with kubectl get pods' READY and STATUS columns. */
export interface PodRow {
  key: string;
  namespace: string;
  name: string;
  node?: string;
  phase: string;
  /** kubectl's STATUS: Running, Terminating, CrashLoopBackOff, Init:0/1, … */
  status: string;
  /** kubectl's READY: ready containers of all, "1/1". */
  ready: string;
  restarts: number;
  /** Each container's volumes, `container: /path (volume)`, when it has any. */
  mounts?: string[];
}

/** What each container mounts where, as its status reports it. */
function mountsOf(pod: Pod): string[] {
  return (pod.status?.containerStatuses ?? []).flatMap((s) =>
    (s.volumeMounts ?? []).map((m) => `${s.name}: ${m.mountPath} (${m.name}${m.readOnly ? ', read-only' : ''})`));
}

export function podRow(pod: Pod): PodRow {
  const row: PodRow = {
    key: pod.metadata.uid ?? objectKey(pod),
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name ?? '',
    phase: pod.status?.phase ?? 'Pending',
    status: kubectlStatus(pod),
    ready: kubectlReady(pod),
    restarts: (pod.status?.containerStatuses ?? []).reduce((sum, s) => sum + (s.restartCount ?? 0), 0),
  };
  if (pod.spec?.nodeName) row.node = pod.spec.nodeName;
  const mounts = mountsOf(pod);
  if (mounts.length > 0) row.mounts = mounts;
  return row;
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
