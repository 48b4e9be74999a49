import { KedgeError } from '../../../shared/errors.js';
import { podReferences, type ReferencedKind } from '../../../shared/pod-references.js';
import type { PersistentVolume } from '../../../shared/storage-types.js';
import type { Pod } from '../../../shared/types.js';
import type { UserInfo } from './authn.js';
import type { AccessFacts, Attributes, Verdict } from './authz.js';
import { nodeMayWriteEvent, noRelationship } from './node-events.js';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const COORDINATION_GROUP = 'coordination.k8s.io';

const readVerbs = new Set(['get', 'list', 'watch']);
const ownNodeVerbs = new Set(['get', 'update', 'patch']);
/** What a node may get only through a pod bound to it (and PVs: through such a pod's claim). */
const referencedKinds: ReadonlyMap<string, ReferencedKind> = new Map([
  ['configmaps', 'ConfigMap'],
  ['secrets', 'Secret'],
  ['persistentvolumeclaims', 'PersistentVolumeClaim'],
]);

/** The user a node acts as, as a node token authenticates it (token-file.ts newTokenEntry). */
export function nodeUser(node: string): UserInfo {
  return { name: `${NODE_USER_PREFIX}${node}`, role: 'node', groups: [NODES_GROUP, 'system:authenticated'] };
}

/** The node a user acts for: "system:node:<name>" in group system:nodes, as kube's Node authorizer requires. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  const name = user.name.slice(NODE_USER_PREFIX.length);
  return name === '' ? undefined : name;
}

/** Refuses a node user acting as the cloud's own node (`reserved`): only the cloud writes that Node, its Lease and its mirror pods. */
export function refuseReservedNode(user: UserInfo, reserved: string | undefined): void {
  if (reserved === undefined || nodeNameOf(user) !== reserved) return;
  throw new KedgeError('Forbidden', `User "${user.name}" is forbidden: node ${reserved} is the cloud's own control-plane node; no node credential may act as it`);
}

/**
 * What a kubelet may do, as kube's Node authorizer and NodeRestriction admission allow: read
 * nodes and pods; register (create) and write only its own Node and its status (what it may
 * change there: node-restriction.ts), its own Lease, and the status of pods bound to it; delete
 * pods bound to it (a kubelet's final delete of a pod it stopped); write Events about itself
 * and its pods (node-events.ts, stricter than kube); get a
 * ConfigMap, Secret or PersistentVolumeClaim a pod bound to it references, and the
 * PersistentVolume such a claim is bound to (never list or watch them).
 */
export async function nodeAllows(user: UserInfo, attrs: Attributes, facts: AccessFacts): Promise<Verdict> {
  const node = nodeNameOf(user);
  if (node === undefined) return false;
  const { verb, resource, subresource: sub } = attrs;
  if (resource === undefined) return verb === 'get';
  const group = attrs.group ?? '';
  if (group === '' && resource === 'nodes') {
    if (sub === undefined && readVerbs.has(verb)) return true;
    // A create names its object only in the body.
    if (sub === undefined && verb === 'create') return facts.submitted().metadata.name === node;
    return (sub === undefined || sub === 'status') && ownNodeVerbs.has(verb) && attrs.name === node;
  }
  if (group === '' && resource === 'pods') {
    if (sub === undefined) return readVerbs.has(verb) || (verb === 'delete' && (await boundNode(facts)) === node);
    if (sub !== 'status') return false;
    if (verb === 'get') return true;
    return (verb === 'update' || verb === 'patch') && (await boundNode(facts)) === node;
  }
  if (group === COORDINATION_GROUP && resource === 'leases' && attrs.namespace === NODE_LEASE_NAMESPACE) {
    // A create names its object only in the body.
    if (verb === 'create') return facts.submitted().metadata.name === node;
    return (verb === 'get' || verb === 'update') && attrs.name === node;
  }
  if (group === '' && resource === 'events' && sub === undefined) return nodeMayWriteEvent(node, attrs, facts);
  const referenced = group === '' ? referencedKinds.get(resource) : undefined;
  if (referenced) return referencedByOwnPod(node, referenced, attrs, facts);
  if (group === '' && resource === 'persistentvolumes') return boundToOwnPodsClaim(node, attrs, facts);
  return false;
}

/** kube's Node authorizer (authorizeGet): a get of one object that a pod bound to the node references, in its namespace. */
async function referencedByOwnPod(node: string, kind: ReferencedKind, attrs: Attributes, facts: AccessFacts): Promise<Verdict> {
  const refused = getOneProblem(attrs);
  if (refused) return refused;
  return (await ownPodReferences(node, undefined, kind, attrs.name, facts)) || noRelationship(node);
}

/**
 * kube's Node authorizer: a get of the volume a claim that a pod bound to the node references is
 * bound to (the claim's spec.volumeName names it). kedge finds that claim through the volume's
 * claimRef, where binding puts it; kube walks its graph from the claim instead.
 */
async function boundToOwnPodsClaim(node: string, attrs: Attributes, facts: AccessFacts): Promise<Verdict> {
  const refused = getOneProblem(attrs);
  if (refused) return refused;
  const claimRef = ((await facts.stored()) as PersistentVolume | undefined)?.spec?.claimRef;
  if (!claimRef?.namespace || !claimRef.name) return noRelationship(node);
  const claim = await facts.claim?.(claimRef.namespace, claimRef.name);
  if (claim?.spec?.volumeName !== attrs.name) return noRelationship(node);
  return (await ownPodReferences(node, claimRef.namespace, 'PersistentVolumeClaim', claimRef.name, facts)) || noRelationship(node);
}

/** Whether a pod bound to `node` in `namespace` (default: the request's) references this object. */
async function ownPodReferences(node: string, namespace: string | undefined, kind: ReferencedKind, name: string | undefined, facts: AccessFacts): Promise<boolean> {
  const pods = (await facts.podsBoundTo?.(node, namespace)) ?? [];
  return pods.some((pod) => podReferences(pod).some((ref) => ref.kind === kind && ref.name === name));
}

/** kube's refusal of anything but a get of one object (a list, a watch, a subresource) through the graph. */
function getOneProblem(attrs: Attributes): Verdict | undefined {
  if (attrs.verb !== 'get' || attrs.name === undefined) return { reason: 'can only get individual resources of this type' };
  if (attrs.subresource !== undefined) return { reason: 'cannot get subresource' };
  return undefined;
}

async function boundNode(facts: AccessFacts): Promise<string | undefined> {
  const pod = (await facts.stored()) as Pod | undefined;
  return pod?.spec?.nodeName;
}
