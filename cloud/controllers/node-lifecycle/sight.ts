import { isKedgeError } from '../../../shared/errors.js';
import type { NodeProbe } from './heartbeat.js';

/**
 * Blind mode. A write that finds the store down means the cached nodes stopped changing because
 * nothing could be written, not because the nodes fell silent: the controller goes blind and
 * judges no node until the nodes are listed again; then silence is counted afresh, as a
 * restarted controller-manager would count it. Pure.
 */
export type Sight = 'seeing' | 'blind';

/** The sight after writing a node's health failed with `err`. */
export function sightAfterFailure(sight: Sight, err: unknown): Sight {
  return isKedgeError(err, 'Unavailable') ? 'blind' : sight;
}

/** On a fresh list of the nodes: a blind controller sees again and counts every node's silence from now (`recount`). */
export function sightOnRelist(sight: Sight): { sight: Sight; recount: boolean } {
  return { sight: 'seeing', recount: sight === 'blind' };
}

/** A probe whose silence counts from `now`. */
export function recounted(probe: NodeProbe, now: number): NodeProbe {
  return { ...probe, probeTime: now };
}
