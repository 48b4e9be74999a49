import type { Pod } from '../../shared/types.js';
import { stableJson } from '../client/object-meta.js';
import { HASH_ANNOTATION, MIRROR_ANNOTATION } from './static-pods.js';

/** What the cloud's node does to its mirror pods: create one, write its status, or remove one (grace 0, as the kubelet). */
export type MirrorAction =
  | { type: 'create'; pod: Pod }
  | { type: 'status'; pod: Pod }
  | { type: 'delete'; name: string; uid: string };

/** Where the cloud's mirror pods live. */
export const MIRROR_NAMESPACE = 'kube-system';

/** Whether `pod` is a mirror pod (the kubelet's annotation) of a static pod on `node`: in kube-system, where the cloud's static pods are. */
export function isMirrorPodOn(pod: Pod, node: string): boolean {
  return pod.metadata.namespace === MIRROR_NAMESPACE && pod.spec.nodeName === node && pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined;
}

const ownerUid = (pod: Pod): string | undefined => pod.metadata.ownerReferences?.find((o) => o.kind === 'Node')?.uid;

/** Same manifest, same node (the hash) and the same Node object as owner: the mirror pod stands for the static pod. */
function standsFor(actual: Pod, desired: Pod): boolean {
  return actual.metadata.annotations?.[MIRROR_ANNOTATION] === desired.metadata.annotations?.[HASH_ANNOTATION] && ownerUid(actual) === ownerUid(desired);
}

/**
 * The kubelet's mirror pod sync (with status in it, as the cloud is also the status manager):
 * a missing mirror pod is created; one being deleted, or standing for another manifest or an
 * older Node, is removed, and created anew on a later pass; one whose status is not what the
 * components say gets it. Mirror pods on the node that no static pod wants are removed. Pure.
 */
export function planMirrorPods(desired: readonly Pod[], actual: readonly Pod[]): MirrorAction[] {
  const actions: MirrorAction[] = [];
  const byName = new Map(actual.map((p) => [p.metadata.name!, p]));
  for (const want of desired) {
    const have = byName.get(want.metadata.name!);
    if (!have) actions.push({ type: 'create', pod: want });
    else if (have.metadata.deletionTimestamp !== undefined || !standsFor(have, want)) actions.push({ type: 'delete', name: have.metadata.name!, uid: have.metadata.uid! });
    else if (stableJson(have.status ?? {}) !== stableJson(want.status ?? {})) actions.push({ type: 'status', pod: { ...have, status: want.status } });
  }
  const wanted = new Set(desired.map((p) => p.metadata.name));
  for (const pod of actual) if (!wanted.has(pod.metadata.name)) actions.push({ type: 'delete', name: pod.metadata.name!, uid: pod.metadata.uid! });
  return actions;
}
