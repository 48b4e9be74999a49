import { cleanupHistory } from './history.js';
import { specReplicas, sumStatus } from './replica-sets.js';
import type { Rollout } from './rollout.js';
import { deploymentComplete, finishRollout } from './status.js';
import { desiredReplicas } from './surge.js';

/**
 * rolloutRecreate: scale every old ReplicaSet to 0, wait until none of their pods is left
 * (terminal pods aside), and only then create and scale up the new one.
 */
export function recreate(r: Rollout, oldPodsLeft: (newRSName: string | undefined) => boolean): void {
  r.syncRevision();
  let scaledDown = false;
  for (const rs of r.oldRSs) if (specReplicas(rs) > 0 && r.scale(rs, 0)) scaledDown = true;
  if (scaledDown) return finishRollout(r);
  if (sumStatus(r.oldRSs, 'replicas') > 0 || oldPodsLeft(r.newRS?.metadata.name)) return finishRollout(r);
  r.createNewIfMissing();
  r.scale(r.newRS!, desiredReplicas(r.d));
  if (deploymentComplete(r.d, r.d.status)) cleanupHistory(r);
  finishRollout(r);
}
