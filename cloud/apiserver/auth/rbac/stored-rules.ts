import { isKedgeError } from '../../../../shared/errors.js';
import type { ApiClient } from '../../../client/client.js';
import { createIfAbsent } from '../../kinds/bootstrap.js';
import type { ResourceDef } from '../../kinds/registry.js';
import type { ObjectStorage } from '../../rest/storage.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule, type Role, type RoleBinding, type RuleSource } from './types.js';

export interface RbacDefs {
  roles: ResourceDef;
  clusterRoles: ResourceDef;
  roleBindings: ResourceDef;
  clusterRoleBindings: ResourceDef;
}

/** The RBAC kinds of a resource table; undefined when it serves none. */
export function rbacDefsOf(defs: readonly ResourceDef[]): RbacDefs | undefined {
  const find = (resource: string): ResourceDef | undefined => defs.find((d) => d.group === RBAC_GROUP && d.resource === resource);
  const [roles, clusterRoles, roleBindings, clusterRoleBindings] = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].map(find);
  return roles && clusterRoles && roleBindings && clusterRoleBindings ? { roles, clusterRoles, roleBindings, clusterRoleBindings } : undefined;
}

/** The stored RBAC objects, read at each decision (the store is the cache: kube's informers play that part there). */
export function storedRuleSource(storage: ObjectStorage, defs: RbacDefs): RuleSource {
  const list = async <T>(def: ResourceDef, namespace?: string): Promise<T[]> => (await storage.list(def, namespace)).items as T[];
  return {
    clusterRoleBindings: () => list<RoleBinding>(defs.clusterRoleBindings),
    roleBindings: (namespace) => list<RoleBinding>(defs.roleBindings, namespace),
    clusterRoles: () => list<ClusterRole>(defs.clusterRoles),
    role: async (namespace, name) => (await storage.find(defs.roles, namespace, name)) as Role | undefined,
  };
}

const clusterRoleRef = (name?: string) => ({ group: RBAC_GROUP, resource: 'clusterroles', name });
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';

/**
 * Creates the bootstrap ClusterRoles and ClusterRoleBindings that are missing, and gives a
 * built-in role annotated autoupdate=true the bootstrap rules it lacks (kube's reconciliation at
 * start: rules are added, never removed). Idempotent: one list of each kind, then writes only
 * where something is missing.
 */
export async function ensureBootstrapPolicy(client: ApiClient, resources: readonly ResourceDef[]): Promise<void> {
  const roles = await storedByName<ClusterRole>(client, 'clusterroles');
  for (const role of bootstrapClusterRoles(resources)) {
    const stored = roles.get(role.metadata.name!);
    if (!stored) await createIfAbsent(client, clusterRoleRef(), role);
    else if (stored.metadata.annotations?.[AUTOUPDATE] === 'true') await addMissingRules(client, stored, role.rules ?? []);
  }
  const bindings = await storedByName<RoleBinding>(client, 'clusterrolebindings');
  for (const binding of bootstrapClusterRoleBindings()) {
    if (!bindings.has(binding.metadata.name!)) await createIfAbsent(client, { group: RBAC_GROUP, resource: 'clusterrolebindings' }, binding);
  }
}

async function storedByName<T extends ClusterRole | RoleBinding>(client: ApiClient, resource: string): Promise<Map<string, T>> {
  const { items } = await client.list<T>({ group: RBAC_GROUP, resource });
  return new Map(items.map((item) => [item.metadata.name ?? '', item]));
}

async function addMissingRules(client: ApiClient, stored: ClusterRole, rules: readonly PolicyRule[]): Promise<void> {
  const have = new Set((stored.rules ?? []).map((r) => JSON.stringify(r)));
  const lacking = rules.filter((r) => !have.has(JSON.stringify(r)));
  if (lacking.length === 0) return;
  await client.replace<ClusterRole>(clusterRoleRef(stored.metadata.name), { ...stored, rules: [...(stored.rules ?? []), ...lacking] }).catch((err: unknown) => {
    // Another cloud starting on the same store reconciled it first.
    if (!isKedgeError(err, 'Conflict')) throw err;
  });
}
