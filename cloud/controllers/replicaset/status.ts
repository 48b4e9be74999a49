import type { ReplicaSet, ReplicaSetStatus } from '../../../shared/apps-types.js';
import type { Pod } from '../../../shared/types.js';
import { isPodAvailable, isPodReady } from './pod-state.js';

/** A ReplicaSet's status from the active pods it owns (calculateStatus). Pure. */
export function replicaSetStatus(rs: ReplicaSet, pods: readonly Pod[], minReadyMs: number, now: number): ReplicaSetStatus {
  const templateLabels = Object.entries(rs.spec.template?.metadata?.labels ?? {});
  const fullyLabeled = pods.filter((p) => templateLabels.every(([k, v]) => p.metadata.labels?.[k] === v)).length;
  const status: ReplicaSetStatus = {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: pods.filter(isPodReady).length,
    availableReplicas: pods.filter((p) => isPodAvailable(p, minReadyMs, now)).length,
    observedGeneration: rs.metadata.generation ?? 0,
  };
  if (rs.status?.conditions?.length) status.conditions = rs.status.conditions;
  return status;
}

/** Whether two statuses say the same (absent counts are 0). */
export function sameReplicaSetStatus(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus | undefined): boolean {
  const fields = ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const;
  return fields.every((f) => (a?.[f] ?? 0) === (b?.[f] ?? 0)) && JSON.stringify(a?.conditions ?? []) === JSON.stringify(b?.conditions ?? []);
}
