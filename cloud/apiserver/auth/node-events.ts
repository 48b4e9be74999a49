import type { KubeObject } from '../../../shared/types.js';
import type { AccessFacts, Attributes, Verdict } from './authz.js';

/** What the rule reads of an Event. */
interface EventFacts extends KubeObject {
  involvedObject?: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string };
  source?: { host?: string };
}

/** Where a kubelet records the Events about its Node (client-go puts a cluster-scoped object's Events there). */
const NODE_EVENTS_NAMESPACE = 'default';

/**
 * What a node may do with core/v1 Events. kube's Node authorizer and RBAC let every node
 * create, update and patch any Event; kedge is stricter: a node creates only Events about its
 * own Node (in namespace default) or about a pod bound to it (in the pod's namespace, naming
 * the pod's uid), and updates or patches only those it reported itself (source.host is the
 * node) about such an object. It never reads, lists, watches or deletes Events. That an update
 * keeps the involvedObject and the source is NodeRestriction's part (node-event-restriction.ts).
 */
export async function nodeMayWriteEvent(node: string, attrs: Attributes, facts: AccessFacts): Promise<Verdict> {
  if (attrs.verb === 'create') return aboutOwnObject(node, attrs.namespace, facts.submitted() as EventFacts, facts);
  if ((attrs.verb !== 'update' && attrs.verb !== 'patch') || attrs.name === undefined) return false;
  const stored = (await facts.stored()) as EventFacts | undefined;
  if (stored === undefined) return false;
  if (stored.source?.host !== node) return { reason: `node '${node}' may only change the events it reported` };
  return aboutOwnObject(node, attrs.namespace, stored, facts);
}

async function aboutOwnObject(node: string, namespace: string | undefined, event: EventFacts, facts: AccessFacts): Promise<Verdict> {
  const about = event.involvedObject ?? {};
  if ((about.apiVersion ?? 'v1') !== 'v1') return noRelationship(node);
  if (about.kind === 'Node') return (about.name === node && namespace === NODE_EVENTS_NAMESPACE) || noRelationship(node);
  if (about.kind !== 'Pod' || namespace === undefined || about.namespace !== namespace || about.uid === undefined || about.name === undefined) return noRelationship(node);
  const pod = await facts.pod?.(namespace, about.name);
  return (pod?.spec?.nodeName === node && pod.metadata.uid === about.uid) || noRelationship(node);
}

export const noRelationship = (node: string): Verdict => ({ reason: `no relationship found between node '${node}' and this object` });
