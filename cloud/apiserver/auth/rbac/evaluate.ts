import { selectorMatches } from '../../../../shared/label-selector.js';
import type { UserInfo } from '../authn.js';
import { ruleAllows, type RequestAttributes } from './rule-match.js';
import type { ClusterRole, PolicyRule, RoleBinding, RuleSource, Subject } from './types.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** kube's appliesToUser: a User by name, a Group the user is in, a ServiceAccount (its namespace defaults to the binding's). */
export function subjectAppliesTo(subject: Subject, user: Pick<UserInfo, 'name' | 'groups'>, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

const boundTo = (binding: RoleBinding, user: Pick<UserInfo, 'name' | 'groups'>, namespace: string): boolean =>
  (binding.subjects ?? []).some((s) => subjectAppliesTo(s, user, namespace));

/**
 * The rules a user holds in `namespace` (cluster-wide ones only when undefined), as kube's
 * RulesFor: every ClusterRoleBinding's role, then the namespace's RoleBindings' roles. A binding
 * to a role that does not exist grants nothing.
 */
export async function rulesFor(source: RuleSource, user: Pick<UserInfo, 'name' | 'groups'>, namespace?: string): Promise<PolicyRule[]> {
  // One round of reads, not three in a row: each may wait on the store.
  const [clusterRoles, clusterRoleBindings, roleBindings] = await Promise.all([
    source.clusterRoles(),
    source.clusterRoleBindings(),
    namespace ? source.roleBindings(namespace) : [],
  ]);
  const rules: PolicyRule[] = [];
  for (const binding of clusterRoleBindings) {
    if (binding.roleRef.kind === 'ClusterRole' && boundTo(binding, user, '')) rules.push(...clusterRoleRules(clusterRoles, binding.roleRef.name));
  }
  if (!namespace) return rules;
  for (const binding of roleBindings) {
    if (!boundTo(binding, user, namespace)) continue;
    if (binding.roleRef.kind === 'ClusterRole') rules.push(...clusterRoleRules(clusterRoles, binding.roleRef.name));
    else if (binding.roleRef.kind === 'Role') rules.push(...((await source.role(namespace, binding.roleRef.name))?.rules ?? []));
  }
  return rules;
}

/** Whether RBAC allows the request: some rule the user holds in the request's namespace matches it. */
export async function rbacAllows(source: RuleSource, user: Pick<UserInfo, 'name' | 'groups'>, attrs: RequestAttributes & { namespace?: string }): Promise<boolean> {
  return (await rulesFor(source, user, attrs.namespace)).some((rule) => ruleAllows(rule, attrs));
}

/**
 * A ClusterRole's rules; with an aggregationRule, the union of the rules of every ClusterRole
 * its selectors match (what kube's clusterrole-aggregation controller writes into it), computed here.
 */
export function clusterRoleRules(all: readonly ClusterRole[], name: string, seen = new Set<string>()): PolicyRule[] {
  const role = all.find((r) => r.metadata.name === name);
  if (!role || seen.has(name)) return [];
  seen.add(name);
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!selectors) return role.rules ?? [];
  // The controller overwrites an aggregated role's rules with its members': those are what count.
  const members = all.filter((r) => r.metadata.name !== name && selectors.some((s) => selectorMatches(s, r.metadata.labels ?? {})));
  return members.flatMap((m) => clusterRoleRules(all, m.metadata.name!, seen));
}
