import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import type { Timing } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import { claim, controllerRefOf } from '../controller-ref.js';
import { cleanupHistory } from './history.js';
import { findCondition, newCondition, Reasons } from './conditions.js';
import { recreate } from './recreate.js';
import { rollingUpdate } from './rolling.js';
import { Rollout, type DeploymentAction } from './rollout.js';
import { specReplicas } from './replica-sets.js';
import { finishRollout } from './status.js';
import { desiredReplicas } from './surge.js';

export type { DeploymentAction } from './rollout.js';

export interface DeploymentPlanInput {
  deployment: Deployment;
  /** Every ReplicaSet in the Deployment's namespace, as the informer shows them. */
  replicaSets: readonly ReplicaSet[];
  /** Every pod in the namespace (Recreate waits for the old ones to be gone). */
  pods: readonly Pod[];
  now: number;
  timing: Pick<Timing, 'timeScale'>;
}

/**
 * One pass of the Deployment controller (syncDeployment): claim ReplicaSets, then one step
 * of the rollout its strategy asks for, and the status that results. Pure.
 */
export function planDeployment(input: DeploymentPlanInput): DeploymentAction[] {
  const d = input.deployment;
  const { claimed, adopt, release } = claim(d, d.spec.selector, input.replicaSets);
  const claims: DeploymentAction[] = [
    ...adopt.map((rs) => ({ type: 'adoptReplicaSet' as const, rs })),
    ...release.map((rs) => ({ type: 'releaseReplicaSet' as const, rs })),
  ];
  const r = new Rollout(d, claimed, input.now, input.timing);
  if (d.metadata.deletionTimestamp) {
    r.syncRevision();
    finishRollout(r, false);
  } else if (d.spec.paused) pausedSync(r);
  else {
    noteResumed(r);
    if (d.spec.strategy?.type === 'Recreate') recreate(r, oldPodsLeft(d, claimed, input.pods));
    else rollingUpdate(r);
  }
  return [...claims, ...r.actions];
}

/** A paused Deployment only follows spec.replicas on its one active ReplicaSet and trims history. */
function pausedSync(r: Rollout): void {
  const current = findCondition(r.conditions, 'Progressing');
  if (r.hasProgressDeadline && current?.reason !== Reasons.paused) {
    r.setCondition(newCondition('Progressing', 'Unknown', Reasons.paused, 'Deployment is paused', r.now));
  }
  r.syncRevision();
  const active = r.all.filter((rs) => specReplicas(rs) > 0);
  const target = active.length === 1 ? active[0]! : active.length === 0 ? r.newRS : undefined;
  if (target) r.scale(target, desiredReplicas(r.d));
  cleanupHistory(r);
  finishRollout(r, false);
}

/** After a pause the deadline starts afresh. */
function noteResumed(r: Rollout): void {
  if (r.hasProgressDeadline && findCondition(r.conditions, 'Progressing')?.reason === Reasons.paused) {
    r.setCondition(newCondition('Progressing', 'Unknown', Reasons.resumed, 'Deployment is resumed', r.now));
  }
}

/** Whether any non-terminal pod of an old ReplicaSet (one of `owned`, other than the new one) still exists. */
function oldPodsLeft(d: Deployment, owned: readonly ReplicaSet[], pods: readonly Pod[]): (newRSName: string | undefined) => boolean {
  return (newRSName) => {
    const oldUids = new Set(owned.filter((rs) => rs.metadata.name !== newRSName).map((rs) => rs.metadata.uid));
    return pods.some((pod) => {
      const ref = controllerRefOf(pod);
      const phase = pod.status?.phase;
      return ref !== undefined && oldUids.has(ref.uid) && selectorMatches(d.spec.selector, pod.metadata.labels) && phase !== 'Succeeded' && phase !== 'Failed';
    });
  };
}
