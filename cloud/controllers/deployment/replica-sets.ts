import { REVISION_ANNOTATION, type ReplicaSet, type ReplicaSetStatus } from '../../../shared/apps-types.js';

/** Sums and orderings over a Deployment's ReplicaSets (deploymentutil's helpers). */

export const specReplicas = (rs: ReplicaSet): number => rs.spec.replicas ?? 1;

export function sumSpec(sets: readonly ReplicaSet[]): number {
  return sets.reduce((n, rs) => n + specReplicas(rs), 0);
}

export function sumStatus(sets: readonly ReplicaSet[], field: keyof Omit<ReplicaSetStatus, 'conditions'>): number {
  return sets.reduce((n, rs) => n + (rs.status?.[field] ?? 0), 0);
}

export function revisionOf(rs: { metadata: { annotations?: Record<string, string> } }): number {
  const n = parseInt(rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return Number.isNaN(n) ? 0 : n;
}

const created = (rs: ReplicaSet): number => Date.parse(rs.metadata.creationTimestamp ?? '') || 0;

/** Oldest first; ties by name (ReplicaSetsByCreationTimestamp). */
export function byCreation(sets: readonly ReplicaSet[]): ReplicaSet[] {
  return [...sets].sort((a, b) => created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : 1));
}

/** Lowest revision first, then oldest (ReplicaSetsByRevision). */
export function byRevision(sets: readonly ReplicaSet[]): ReplicaSet[] {
  return byCreation(sets).sort((a, b) => revisionOf(a) - revisionOf(b));
}
