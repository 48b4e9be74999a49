import { isKedgeError, KedgeError } from '../../shared/errors.js';
import type { EdgeEvent } from '../../shared/protocol/envelope.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import type { KubeEvent } from '../controllers/events.js';
import type { BoundPod } from './bound-pods.js';
import { retryOnConflict } from './upstream.js';

/** What the hub's caches say of a node's own objects. */
export interface OwnObjects {
  /** The uid of the Node of this name; undefined when there is none. */
  nodeUid(node: string): string | undefined;
  /** The live pod with this uid; undefined when there is none. */
  podOf(uid: string): BoundPod | undefined;
}

export type EventSubject = { own: true; namespace: string; involvedObject: KubeEvent['involvedObject'] } | { own: false; why: string };

/** Where a kubelet records the Events about its Node (client-go: a cluster-scoped object's Events go to "default"). */
const NODE_EVENTS_NAMESPACE = 'default';

/**
 * [SYNC-21] What an Event a node reports is about, when that is the node's own Node (name and
 * uid) or a live pod bound to it (by uid; namespace and name from the pod); else why it is
 * refused. Pure.
 */
export function eventSubject(node: string, event: EdgeEvent, own: OwnObjects): EventSubject {
  const { kind, name, uid, fieldPath } = event.involvedObject;
  const at = fieldPath === undefined ? {} : { fieldPath };
  if (kind === 'Node') {
    if (name !== node) return { own: false, why: `node ${node} reported an event about node ${name}` };
    // The kubelet names its Node by name as uid (its nodeRef), kubectl describe node looks for both.
    if (uid !== node && own.nodeUid(node) !== uid) return { own: false, why: `node ${node} reported an event about a Node ${name} of uid ${uid}, which is not its Node` };
    return { own: true, namespace: NODE_EVENTS_NAMESPACE, involvedObject: { apiVersion: 'v1', kind, name, uid, ...at } };
  }
  const said = `pod ${event.involvedObject.namespace ?? 'default'}/${name}`;
  const pod = own.podOf(uid);
  if (!pod) return { own: false, why: `node ${node} reported an event about ${said} of uid ${uid}, which is no live pod` };
  if (pod.node !== node) return { own: false, why: `node ${node} reported an event about ${said}, ${pod.node ? `bound to node ${pod.node}` : 'bound to no node'}` };
  if (pod.name !== name) return { own: false, why: `node ${node} reported an event about ${said}, but uid ${uid} is pod ${pod.namespace}/${pod.name}` };
  return { own: true, namespace: pod.namespace, involvedObject: { apiVersion: 'v1', kind, namespace: pod.namespace, name, uid, ...at } };
}

/** The core/v1 Event the hub writes for a node's report, as the kubelet's recorder would have. Pure. */
export function edgeEventObject(node: string, event: EdgeEvent, subject: Extract<EventSubject, { own: true }>): KubeEvent {
  const { name, reason, message, type, count, firstTimestamp, lastTimestamp } = event;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: subject.namespace },
    involvedObject: subject.involvedObject,
    reason,
    message,
    type,
    count,
    firstTimestamp,
    lastTimestamp,
    source: { component: 'kubelet', host: node },
    reportingComponent: 'kubelet',
    reportingInstance: node,
  };
}

export type EventWrite = 'created' | 'counted' | 'unchanged';

/**
 * Writes a node's Event as the node (`asNode`): created, or, when its name exists (a repeat,
 * or a re-send), its count and lastTimestamp raised if the report counts more, so that re-sends
 * change nothing and the count never goes back. The stored Event is read with `reader` (a
 * node may not read Events). An existing Event about another object is refused for good
 * (Invalid); a store that is down throws as it is, for the edge to send again.
 */
export async function writeEdgeEvent(asNode: ApiClient, reader: ApiClient, event: KubeEvent): Promise<EventWrite> {
  const ref = { resource: 'events', namespace: event.metadata.namespace, name: event.metadata.name };
  return retryOnConflict(async () => {
    if (await created(asNode, event)) return 'created';
    const current = await getOrUndefined(() => reader.get<KubeEvent>(ref));
    if (!current) throw new KedgeError('Conflict', `event ${ref.name} expired meanwhile`); // created again on the next try
    if (current.involvedObject?.uid !== event.involvedObject.uid) {
      throw new KedgeError('Invalid', `event "${ref.name}" exists about another object (uid ${current.involvedObject?.uid ?? 'none'})`);
    }
    if ((current.count ?? 1) >= event.count) return 'unchanged';
    await asNode.replace<KubeEvent>(ref, { ...current, count: event.count, lastTimestamp: event.lastTimestamp });
    return 'counted';
  });
}

/** Whether the Event was created; false when one of its name exists. */
async function created(asNode: ApiClient, event: KubeEvent): Promise<boolean> {
  try {
    await asNode.create({ resource: 'events', namespace: event.metadata.namespace }, event);
    return true;
  } catch (err) {
    if (isKedgeError(err, 'AlreadyExists')) return false;
    throw err;
  }
}
