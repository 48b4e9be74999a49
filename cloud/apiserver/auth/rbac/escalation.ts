import { KedgeError } from '../../../../shared/errors.js';
import type { KubeObject } from '../../../../shared/types.js';
import type { UserInfo } from '../authn.js';
import { clusterRoleRules, rbacAllows, rulesFor } from './evaluate.js';
import { compactRules, compactString, goQuoted, uncovered } from './covers.js';
import { clusterAdminRules } from './kube-roles.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule, type RoleBinding, type RuleSource } from './types.js';

/**
 * kube's escalation prevention (pkg/registry/rbac/*\/policybased): a Role or ClusterRole may
 * hold, and a binding may grant, only what its writer holds, unless the writer is in
 * system:masters or may `escalate` roles (`bind` the role, for bindings).
 */
export interface Writer {
  user: Pick<UserInfo, 'name' | 'groups'>;
  /** Whether the writer is privileged (system:masters): no check. */
  privileged: boolean;
}

type RbacResource = 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings';

export async function checkRoleWrite(source: RuleSource, writer: Writer, resource: 'roles' | 'clusterroles', role: ClusterRole, old?: ClusterRole): Promise<void> {
  if (writer.privileged) return;
  if (old && JSON.stringify([old.rules, old.aggregationRule]) === JSON.stringify([role.rules, role.aggregationRule])) return;
  const namespace = role.metadata.namespace;
  if (await rbacAllows(source, writer.user, { verb: 'escalate', group: RBAC_GROUP, resource, namespace, name: old ? role.metadata.name : undefined, path: '' })) return;
  if (role.aggregationRule && (await missing(source, writer, namespace, clusterAdminRules)).length > 0) {
    throw forbidden(resource, role, 'must have cluster-admin privileges to use the aggregationRule');
  }
  await confirmNoEscalation(source, writer, resource, role, role.rules ?? []);
}

export async function checkBindingWrite(source: RuleSource, writer: Writer, resource: 'rolebindings' | 'clusterrolebindings', binding: RoleBinding, old?: RoleBinding): Promise<void> {
  if (writer.privileged) return;
  if (old && JSON.stringify([old.roleRef, old.subjects]) === JSON.stringify([binding.roleRef, binding.subjects])) return;
  const namespace = binding.metadata.namespace;
  const ref = binding.roleRef ?? { kind: '', name: '' };
  const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
  if (await rbacAllows(source, writer.user, { verb: 'bind', group: RBAC_GROUP, resource: refResource, namespace, name: ref.name, path: '' })) return;
  await confirmNoEscalation(source, writer, resource, binding, await referencedRules(source, ref.kind, ref.name, namespace, resource, binding));
}

/** kube's GetRoleReferenceRules: a missing role is refused as kube refuses it ("clusterrole.rbac.authorization.k8s.io "x" not found"). */
async function referencedRules(source: RuleSource, kind: string, name: string, namespace: string | undefined, resource: RbacResource, binding: KubeObject): Promise<PolicyRule[]> {
  if (kind === 'Role' && namespace) {
    const role = await source.role(namespace, name);
    if (role) return role.rules ?? [];
  } else if (kind === 'ClusterRole') {
    const all = await source.clusterRoles();
    if (all.some((r) => r.metadata.name === name)) return clusterRoleRules(all, name);
  }
  throw forbidden(resource, binding, `${kind.toLowerCase()}.${RBAC_GROUP} "${name}" not found`);
}

async function missing(source: RuleSource, writer: Writer, namespace: string | undefined, wanted: readonly PolicyRule[]): Promise<PolicyRule[]> {
  return uncovered(await rulesFor(source, writer.user, namespace), wanted);
}

async function confirmNoEscalation(source: RuleSource, writer: Writer, resource: RbacResource, obj: KubeObject, wanted: readonly PolicyRule[]): Promise<void> {
  const lacking = await missing(source, writer, obj.metadata.namespace, wanted);
  if (lacking.length === 0) return;
  const lines = [...new Set(compactRules(lacking).map(compactString))].sort();
  const { name, groups } = writer.user;
  throw forbidden(resource, obj, `user ${JSON.stringify(name)} (groups=${goQuoted(groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`);
}

function forbidden(resource: RbacResource, obj: KubeObject, why: string): KedgeError {
  const name = obj.metadata.name ?? '';
  return new KedgeError('Forbidden', `${resource}.${RBAC_GROUP} ${JSON.stringify(name)} is forbidden: ${why}`, { details: { name, group: RBAC_GROUP, kind: resource } });
}
