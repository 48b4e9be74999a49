import type { KubeObject, Pod } from '../../../shared/types.js';
import type { DeleteRequestOptions } from './delete-options.js';
import { isDeleting } from '../../client/deletion.js';
import { timestamp } from '../../client/object-meta.js';

/**
 * Graceful pod deletion, as kube's pod strategy does it: a pod on a node is only marked
 * (deletionTimestamp = now + grace); its kubelet stops the containers and then the pod goes.
 * A pod on no node, or finished, has nothing to wait for.
 */
export function podGracePeriod(pod: Pod, options: DeleteRequestOptions): number {
  if (!pod.spec?.nodeName) return 0;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  return Math.max(0, options.gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30);
}

/** The pod marked for deletion within `grace` seconds, or undefined if it already is, no later. Pure. */
export function markForGracefulDeletion(pod: KubeObject, grace: number, now: number): KubeObject | undefined {
  const current = pod.metadata.deletionGracePeriodSeconds;
  if (isDeleting(pod) && current !== undefined && current !== null && current <= grace) return undefined;
  const next = structuredClone(pod);
  next.metadata.deletionTimestamp = timestamp(now + grace * 1000);
  next.metadata.deletionGracePeriodSeconds = grace;
  if (!isDeleting(pod) && next.metadata.generation !== undefined) next.metadata.generation += 1;
  return next;
}
