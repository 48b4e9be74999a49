import type { ResourceDef, ResourceStrategy } from '../../kinds/registry.js';
import type { ObjectStorage } from '../../rest/storage.js';
import { effectiveGroups, isPrivileged } from '../authz.js';
import type { UserInfo } from '../authn.js';
import { bootstrapRuleSource } from './bootstrap-policy.js';
import { checkBindingWrite, checkRoleWrite, type Writer } from './escalation.js';
import { rbacDefsOf, storedRuleSource } from './stored-rules.js';
import { RBAC_GROUP, type ClusterRole, type RoleBinding, type RuleSource } from './types.js';

/**
 * The stored policy as the apiserver's RBAC evaluates it. The cloud writes the bootstrap policy
 * at start (stored-rules.ts ensureBootstrapPolicy, as kube's rbac/bootstrap-roles post-start
 * hook); a store holding no ClusterRoles (no ClusterRoleBindings) at all is evaluated as holding
 * the bootstrap ones, so an apiserver no one bootstrapped still decides as a new cluster does,
 * and no request writes anything it was not asked to. The bootstrap policy alone when the table
 * serves no RBAC kinds.
 */
export function apiServerRuleSource(storage: ObjectStorage, resources: readonly ResourceDef[]): RuleSource {
  const bootstrap = bootstrapRuleSource(resources);
  const defs = rbacDefsOf(resources);
  if (!defs) return bootstrap;
  const stored = storedRuleSource(storage, defs);
  const orBootstrap = async <T>(found: T[], otherwise: () => Promise<T[]>): Promise<T[]> => (found.length > 0 ? found : otherwise());
  return {
    clusterRoleBindings: async () => orBootstrap(await stored.clusterRoleBindings(), bootstrap.clusterRoleBindings),
    roleBindings: stored.roleBindings,
    clusterRoles: async () => orBootstrap(await stored.clusterRoles(), bootstrap.clusterRoles),
    role: stored.role,
  };
}

const writerOf = (user: UserInfo): Writer => ({ user: { name: user.name, groups: effectiveGroups(user) }, privileged: isPrivileged(user) });

/** The resource table with kube's escalation check on writes of Roles, ClusterRoles and their bindings (escalation.ts). */
export function withEscalationChecks(resources: readonly ResourceDef[], rules: RuleSource): ResourceDef[] {
  return resources.map((def) => {
    if (def.group !== RBAC_GROUP) return def;
    const resource = def.resource;
    const prepare: ResourceStrategy['prepare'] = async (obj, ctx) => {
      if (!ctx.user) return;
      const writer = writerOf(ctx.user);
      if (resource === 'roles' || resource === 'clusterroles') await checkRoleWrite(rules, writer, resource, obj as ClusterRole, ctx.old as ClusterRole | undefined);
      if (resource === 'rolebindings' || resource === 'clusterrolebindings') await checkBindingWrite(rules, writer, resource, obj as RoleBinding, ctx.old as RoleBinding | undefined);
    };
    return { ...def, strategy: { ...def.strategy, prepare } };
  });
}
