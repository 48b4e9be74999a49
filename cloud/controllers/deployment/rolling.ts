import type { ReplicaSet } from '../../../shared/apps-types.js';
import { cleanupHistory } from './history.js';
import { byCreation, specReplicas, sumSpec, sumStatus } from './replica-sets.js';
import { newReplicaSetReplicas, type Rollout } from './rollout.js';
import { deploymentComplete, finishRollout } from './status.js';
import { desiredReplicas, maxUnavailable } from './surge.js';

/**
 * rolloutRolling: one step of a RollingUpdate. Scale the new ReplicaSet up as far as maxSurge
 * allows; else scale old ones down as far as maxUnavailable allows (unhealthy pods first);
 * once complete, trim the history.
 */
export function rollingUpdate(r: Rollout): void {
  r.createNewIfMissing();
  if (reconcileNewReplicaSet(r) || reconcileOldReplicaSets(r)) return finishRollout(r);
  if (deploymentComplete(r.d, r.d.status)) cleanupHistory(r);
  finishRollout(r);
}

function reconcileNewReplicaSet(r: Rollout): boolean {
  const newRS = r.newRS!;
  const desired = desiredReplicas(r.d);
  const current = specReplicas(newRS);
  if (current === desired) return false;
  if (current > desired) return r.scale(newRS, desired);
  return r.scale(newRS, newReplicaSetReplicas(r.d, r.oldRSs, current));
}

function reconcileOldReplicaSets(r: Rollout): boolean {
  if (sumSpec(r.oldRSs) === 0) return false;
  const newRS = r.newRS!;
  const minAvailable = desiredReplicas(r.d) - maxUnavailable(r.d);
  const newUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = sumSpec(r.all) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleaned = cleanupUnhealthyReplicas(r, maxScaledDown);
  const scaled = scaleDownOldReplicaSets(r, minAvailable);
  return cleaned + scaled > 0;
}

const activeOld = (r: Rollout): ReplicaSet[] => byCreation(r.oldRSs.filter((rs) => specReplicas(rs) > 0));

/** Scales old ReplicaSets down by their unavailable pods first: those cost no availability. */
function cleanupUnhealthyReplicas(r: Rollout, maxCleanup: number): number {
  let total = 0;
  for (const rs of activeOld(r)) {
    if (total >= maxCleanup) break;
    const unhealthy = specReplicas(rs) - (rs.status?.availableReplicas ?? 0);
    if (unhealthy <= 0) continue;
    const count = Math.min(maxCleanup - total, unhealthy);
    r.scale(rs, specReplicas(rs) - count);
    total += count;
  }
  return total;
}

/** Then by available pods, oldest ReplicaSet first, keeping minAvailable pods available. */
function scaleDownOldReplicaSets(r: Rollout, minAvailable: number): number {
  const available = sumStatus(r.all, 'availableReplicas');
  if (available <= minAvailable) return 0;
  const budget = available - minAvailable;
  let total = 0;
  for (const rs of activeOld(r)) {
    if (total >= budget) break;
    const count = Math.min(specReplicas(rs), budget - total);
    r.scale(rs, specReplicas(rs) - count);
    total += count;
  }
  return total;
}
