import type { EdgeEvent } from '../../shared/protocol/envelope.js';

/** What an Event is about: the node's own Node, or a pod bound to it (a container of it with `fieldPath`). */
export type InvolvedObject = EdgeEvent['involvedObject'];
export type EventType = EdgeEvent['type'];

/** The edge's side of client-go's EventRecorder: record and forget; it never throws and never waits. */
export interface EventRecorder {
  record(about: InvolvedObject, type: EventType, reason: string, message: string): void;
}

/** Records nothing (edged and the prober without events, in tests). */
export const noEvents: EventRecorder = { record: () => {} };

/** A pod (namespace defaults as kube's). */
export function podRef(pod: { metadata: { name?: string; namespace?: string; uid?: string } }): InvolvedObject {
  const { name = '', namespace = 'default', uid = '' } = pod.metadata;
  return { kind: 'Pod', namespace, name, uid };
}

/** A container of a pod, as kubelet's container/ref.go names it. */
export function containerRef(pod: { metadata: { name?: string; namespace?: string; uid?: string } }, container: string, init = false): InvolvedObject {
  return { ...podRef(pod), fieldPath: `spec.${init ? 'initContainers' : 'containers'}{${container}}` };
}

/** The node itself; its uid is its name, as the kubelet's nodeRef (and `kubectl describe node` searches by it). */
export function nodeRef(nodeName: string): InvolvedObject {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}
