import { byRevision, specReplicas } from './replica-sets.js';
import type { Rollout } from './rollout.js';

/**
 * cleanupDeployment: keeps revisionHistoryLimit old ReplicaSets and deletes the oldest
 * others, but only those fully scaled down (no pods, spec 0, status up to date).
 */
export function cleanupHistory(r: Rollout): void {
  const limit = r.d.spec.revisionHistoryLimit ?? 10;
  const cleanable = byRevision(r.oldRSs.filter((rs) => !rs.metadata.deletionTimestamp));
  const excess = cleanable.length - limit;
  for (const rs of cleanable.slice(0, Math.max(0, excess))) {
    const idle = (rs.status?.replicas ?? 0) === 0 && specReplicas(rs) === 0;
    const observed = (rs.metadata.generation ?? 0) <= (rs.status?.observedGeneration ?? 0);
    if (idle && observed) r.actions.push({ type: 'deleteReplicaSet', rs });
  }
}
