import { KedgeError } from '../../../shared/errors.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { KubeObject, Pod } from '../../../shared/types.js';
import { DASHBOARD_SESSION_GROUP, type UserInfo } from './authn.js';
import { nodeAllows, nodeNameOf } from './node-authz.js';
import { bootstrapRuleSource, MASTERS_GROUP, VIEWERS_GROUP } from './rbac/bootstrap-policy.js';
import { rbacAllows } from './rbac/evaluate.js';
import type { RuleSource } from './rbac/types.js';
import { clusterResources } from '../kinds/resources.js';
import { decodeObject } from '../http/request-body.js';
import type { RoutedCall } from '../rest/rest-handler.js';
import type { ObjectStorage } from '../rest/storage.js';
import type { ResourceDef } from '../kinds/registry.js';

/** What a request asks to do, in RBAC terms. */
export interface Attributes {
  verb: string;
  /** Absent for non-resource paths such as /api or /version. */
  resource?: string;
  subresource?: string;
  group?: string;
  namespace?: string;
  name?: string;
  path: string;
}

/** What some rules must know about the objects a request touches; fetched only when a rule asks. */
export interface AccessFacts {
  /** The object the path names, as stored; undefined when there is none. */
  stored(): Promise<KubeObject | undefined>;
  /** The object in the request body (a create names its object only there); BadRequest when malformed. */
  submitted(): KubeObject;
  /** The pods in `namespace` (default: the request's) bound to `node` (the Node authorizer's graph); none when absent. */
  podsBoundTo?(node: string, namespace?: string): Promise<Pod[]>;
  /** The pod of this namespace and name, as stored; undefined when absent (one read, where a rule names its pod). */
  pod?(namespace: string, name: string): Promise<Pod | undefined>;
  /** The claim of this namespace and name, as stored (the graph's claim → volume edge); undefined when absent. */
  claim?(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
}

/** A rule's answer: allowed, refused, or refused with kube's reason (the end of the Forbidden message). */
export type Verdict = boolean | { reason: string };

const noFacts: AccessFacts = { stored: () => Promise.resolve(undefined), submitted: () => ({ metadata: {} }) };

/** The token roles kedge knows (token-file.ts TOKEN_ROLES); a token of any other role is refused everything. */
const knownRoles = new Set(['admin', 'viewer', 'node']);

/**
 * The groups RBAC sees: the user's, and the one its token's role stands for (an admin token:
 * system:masters; a viewer token: kedge:viewers, bound to `view` and kedge:cluster-viewer).
 */
export function effectiveGroups(user: UserInfo): string[] {
  const roleGroup = user.role === 'admin' ? MASTERS_GROUP : user.role === 'viewer' ? VIEWERS_GROUP : undefined;
  return roleGroup === undefined || user.groups.includes(roleGroup) ? user.groups : [roleGroup, ...user.groups];
}

/** Whether the user is in system:masters, which kube-apiserver allows everything before any authorizer. */
export const isPrivileged = (user: UserInfo): boolean => knownRoles.has(user.role) && effectiveGroups(user).includes(MASTERS_GROUP);

/**
 * kube-apiserver's authorization, as `--authorization-mode=Node,RBAC` after its privileged
 * group: system:masters may do everything; a node user what the Node authorizer allows
 * (node-authz.ts); then RBAC over `rules` (the stored policy in the apiserver; the bootstrap
 * policy alone when none is given: tests of the rules). A token of an unknown role, or of
 * role node naming no node (system:node:<name> in system:nodes), is refused everything (kedge's).
 * Refusals carry kube's Forbidden message.
 */
export async function authorize(user: UserInfo, attrs: Attributes, facts: AccessFacts = noFacts, rules?: RuleSource): Promise<void> {
  const verdict = await allows(user, attrs, facts, rules ?? bootstrapRuleSource(clusterResources));
  if (verdict === true) return;
  throw forbidden(user, attrs, typeof verdict === 'object' ? verdict.reason : undefined);
}

async function allows(user: UserInfo, attrs: Attributes, facts: AccessFacts, rules: RuleSource): Promise<Verdict> {
  if (!knownRoles.has(user.role) || (user.role === 'node' && nodeNameOf(user) === undefined)) return false;
  if (isPrivileged(user)) return true;
  const node = user.role === 'node' ? await nodeAllows(user, attrs, facts) : false;
  if (node === true) return true;
  if (await rbacAllows(rules, { name: user.name, groups: effectiveGroups(user) }, attrs)) return true;
  return node;
}

/**
 * The facts of a routed resource request: the stored object from storage, the submitted one
 * from the body, the pods a node runs in a namespace (a list of that namespace's pods, as
 * `defs.pods`, the kind's definition, stores them), and a claim by name (`defs.claims`).
 */
export function requestFacts(storage: ObjectStorage, call: RoutedCall, defs: { pods?: ResourceDef; claims?: ResourceDef } = {}): AccessFacts {
  const { namespace, name } = call.path;
  return {
    stored: async () => (name === undefined ? undefined : storage.find(call.def, namespace, name)),
    submitted: () => decodeObject(call.req),
    podsBoundTo: async (node, inNamespace = namespace) => {
      if (!defs.pods || inNamespace === undefined) return [];
      return ((await storage.list(defs.pods, inNamespace)).items as Pod[]).filter((pod) => pod.spec?.nodeName === node);
    },
    pod: async (podNamespace, podName) => (defs.pods ? ((await storage.find(defs.pods, podNamespace, podName)) as Pod | undefined) : undefined),
    claim: async (claimNamespace, claimName) => (defs.claims ? ((await storage.find(defs.claims, claimNamespace, claimName)) as PersistentVolumeClaim | undefined) : undefined),
  };
}

function forbidden(user: UserInfo, attrs: Attributes, reason?: string): KedgeError {
  if (attrs.resource === undefined) {
    return new KedgeError('Forbidden', `forbidden: User "${user.name}" cannot ${attrs.verb} path "${attrs.path}"`);
  }
  const res = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const group = attrs.group ?? '';
  const scope = attrs.namespace ? ` in the namespace "${attrs.namespace}"` : ' at the cluster scope';
  // kube's qualified resource: "deployments.apps", "pods".
  const qualified = group ? `${attrs.resource}.${group}` : attrs.resource;
  const named = attrs.name ? `${qualified} "${attrs.name}" is forbidden` : `${qualified} is forbidden`;
  const why = reason ? `: ${reason}` : '';
  return new KedgeError('Forbidden', `${named}: User "${user.name}" cannot ${attrs.verb} resource "${res}" in API group "${group}"${scope}${why}`, {
    details: attrs.name ? { name: attrs.name, group, kind: attrs.resource } : { group, kind: attrs.resource },
  });
}

/** For the paths only an admin may use whatever the verb (a viewer may GET other non-resource paths). */
export function adminOnly(user: UserInfo, path: string): void {
  if (user.role !== 'admin') throw new KedgeError('Forbidden', `forbidden: User "${user.name}" cannot use path "${path}": admins only`);
}

/**
 * For what only an admin's own token may do: mint login tokens, take a backup of the store.
 * A dashboard session acts as its admin for everything else; a stolen one cannot outlive
 * itself by minting more, nor carry off every Secret at once.
 */
export function adminTokenOnly(user: UserInfo, path: string): void {
  adminOnly(user, path);
  if (user.groups.includes(DASHBOARD_SESSION_GROUP)) {
    throw new KedgeError('Forbidden', `forbidden: User "${user.name}" cannot use path "${path}" with a dashboard session: an admin token only`);
  }
}

/** What each header kubectl's --as, --as-group and --as-uid send asks to impersonate (Impersonate-Extra-* asks for userextras). */
const IMPERSONATED: Record<string, string> = { 'impersonate-user': 'users', 'impersonate-group': 'groups', 'impersonate-uid': 'uids' };

/**
 * kedge does not impersonate: a request asking to act as someone else is refused as kube refuses
 * a user not allowed to, rather than served as its sender (which would answer `can-i --as` wrongly).
 */
export function refuseImpersonation(user: UserInfo, headers: Record<string, string | undefined>): void {
  for (const [header, value] of Object.entries(headers)) {
    const resource = IMPERSONATED[header] ?? (header.startsWith('impersonate-extra-') ? 'userextras' : undefined);
    if (resource === undefined || value === undefined) continue;
    const target = resource === 'userextras' ? resource : `${resource} "${value}"`;
    throw new KedgeError('Forbidden', `${target} is forbidden: User "${user.name}" cannot impersonate resource "${resource}" in API group "" at the cluster scope: kedge does not support impersonation`, {
      details: { group: '', kind: resource },
    });
  }
}
