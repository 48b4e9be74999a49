import type { Pod } from '../../../shared/types.js';

/** What to do about the pods bound to one node name. */
export type OrphanPlan =
  | { type: 'none' }
  /** The node is missing, but not for long enough: look again then. */
  | { type: 'wait'; ms: number }
  /** The node has been gone past the quarantine: these pods go. */
  | { type: 'delete'; pods: Pod[] };

/**
 * Kubernetes' pod GC for orphans: pods bound to a node that no longer exists are deleted once
 * the node has been missing for `quarantineMs` (a Node deleted and made again at once keeps
 * its pods). Pods already being deleted are left to their deletion. Pure.
 */
export function planOrphans(nodeExists: boolean, missingSince: number | undefined, pods: readonly Pod[], now: number, quarantineMs: number): OrphanPlan {
  if (nodeExists || missingSince === undefined) return { type: 'none' };
  const left = missingSince + quarantineMs - now;
  if (left > 0) return { type: 'wait', ms: left };
  const orphans = pods.filter((p) => p.metadata.deletionTimestamp === undefined || (p.metadata.deletionGracePeriodSeconds ?? 0) > 0);
  return orphans.length > 0 ? { type: 'delete', pods: orphans } : { type: 'none' };
}
