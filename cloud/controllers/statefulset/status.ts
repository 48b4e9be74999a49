import type { StatefulSet, StatefulSetStatus } from '../../../shared/statefulset-types.js';
import type { Pod } from '../../../shared/types.js';
import { isPodAvailable, isPodReady } from '../replicaset/pod-state.js';
import { podRevision } from './identity.js';

/** What the StatefulSet controller reads from a pod (isRunningAndReady, isRunningAndAvailable, isHealthy). */
export const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
export const isRunningAndAvailable = (pod: Pod, minReadyMs: number, now: number): boolean => pod.status?.phase === 'Running' && isPodAvailable(pod, minReadyMs, now);
export const isTerminating = (pod: Pod): boolean => pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;

export interface StatusInput {
  sts: StatefulSet;
  pods: readonly Pod[];
  currentRevision: string;
  updateRevision: string;
  minReadyMs: number;
  now: number;
}

/** computeReplicaStatus + completeRollingUpdate: counts over the set's pods; a finished RollingUpdate makes the update revision current. Pure. */
export function statefulSetStatus(input: StatusInput): StatefulSetStatus {
  const { sts, currentRevision, updateRevision } = input;
  const status: StatefulSetStatus = {
    observedGeneration: sts.metadata.generation ?? 0,
    replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0,
    currentRevision, updateRevision,
    collisionCount: sts.status?.collisionCount ?? 0,
  };
  for (const pod of input.pods) {
    status.replicas++;
    if (isRunningAndReady(pod)) {
      status.readyReplicas!++;
      if (isRunningAndAvailable(pod, input.minReadyMs, input.now)) status.availableReplicas!++;
    }
    if (isTerminating(pod)) continue;
    if (podRevision(pod) === currentRevision) status.currentReplicas!++;
    if (podRevision(pod) === updateRevision) status.updatedReplicas!++;
  }
  const rolling = sts.spec.updateStrategy?.type !== 'OnDelete';
  if (rolling && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = updateRevision;
  }
  if (sts.status?.conditions?.length) status.conditions = sts.status.conditions;
  return status;
}

const FIELDS = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'currentRevision', 'updateRevision', 'collisionCount'] as const;

export function sameStatefulSetStatus(a: StatefulSetStatus | undefined, b: StatefulSetStatus | undefined): boolean {
  return FIELDS.every((f) => (a?.[f] ?? 0) === (b?.[f] ?? 0));
}
