import type { DeploymentCondition } from '../../../shared/apps-types.js';
import { timestamp } from '../../client/object-meta.js';

/** Deployment conditions and their reasons, as deploymentutil names them. */
export const Reasons = {
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  rsUpdated: 'ReplicaSetUpdated',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  available: 'MinimumReplicasAvailable',
  unavailable: 'MinimumReplicasUnavailable',
} as const;

export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, now: number): DeploymentCondition {
  const at = timestamp(now);
  return { type, status, lastUpdateTime: at, lastTransitionTime: at, reason, message };
}

export function findCondition(conditions: readonly DeploymentCondition[] | undefined, type: string): DeploymentCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * SetDeploymentCondition: a condition with the same status and reason is kept as it was;
 * the same status with another reason keeps its lastTransitionTime.
 */
export function setCondition(conditions: readonly DeploymentCondition[], next: DeploymentCondition): DeploymentCondition[] {
  const current = findCondition(conditions, next.type);
  if (current && current.status === next.status && current.reason === next.reason) return [...conditions];
  const merged = current && current.status === next.status ? { ...next, lastTransitionTime: current.lastTransitionTime } : next;
  return [...conditions.filter((c) => c.type !== next.type), merged];
}

export function removeCondition(conditions: readonly DeploymentCondition[], type: string): DeploymentCondition[] {
  return conditions.filter((c) => c.type !== type);
}
