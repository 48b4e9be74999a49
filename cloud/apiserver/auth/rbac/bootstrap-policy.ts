import type { ResourceDef } from '../../kinds/registry.js';
import { aggregateToAdminRules, aggregateToEditRules, aggregateToViewRules, basicUserRules, clusterAdminRules, discoveryRules, publicInfoViewerRules } from './kube-roles.js';
import { clusterRoleRules } from './evaluate.js';
import { RBAC_GROUP, type ClusterRole, type PolicyRule, type RoleBinding, type RuleSource, type Subject } from './types.js';

/** The group of every viewer token (token-file.ts newTokenEntry), bound to `view` and `kedge:cluster-viewer`. */
export const VIEWERS_GROUP = 'kedge:viewers';
export const MASTERS_GROUP = 'system:masters';
export const CLUSTER_VIEWER_ROLE = 'kedge:cluster-viewer';

const AGGREGATE = 'rbac.authorization.k8s.io/aggregate-to-';
const bootstrapMeta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

const clusterRole = (name: string, rules: PolicyRule[], labels?: Record<string, string>): ClusterRole => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: bootstrapMeta(name, labels), rules });

const aggregated = (name: string, labels?: Record<string, string>): ClusterRole => ({
  ...clusterRole(name, [], labels),
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${AGGREGATE}${name}`]: 'true' } }] },
});

const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });

const clusterRoleBinding = (name: string, role: string, subjects: Subject[]): RoleBinding => ({
  apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: bootstrapMeta(name), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects,
});

/**
 * What a viewer token could always read beyond kube's `view`: every served kind but Secrets
 * (nodes, volumes, classes, RBAC objects, metrics, …) and GET of every non-resource path. RBAC
 * has no "all but", so the kinds are listed from the resource table.
 */
export function clusterViewerRules(resources: readonly ResourceDef[]): PolicyRule[] {
  const byGroup = new Map<string, string[]>();
  for (const def of resources) {
    if (def.group === '' && def.resource === 'secrets') continue;
    const subresources = def.subresources.map((s) => `${def.resource}/${s.name}`);
    byGroup.set(def.group, [...new Set([...(byGroup.get(def.group) ?? []), def.resource, ...subresources])]);
  }
  const rules = [...byGroup].map(([apiGroup, names]): PolicyRule => ({ apiGroups: [apiGroup], resources: names.sort(), verbs: ['get', 'list', 'watch'] }));
  return [...rules, { nonResourceURLs: ['*'], verbs: ['get'] }];
}

/** kube's bootstrap ClusterRoles (cluster-admin, admin, edit, view, the aggregate-to ones, basic-user, discovery) and kedge's viewer role. */
export function bootstrapClusterRoles(resources: readonly ResourceDef[]): ClusterRole[] {
  const roles = [
    clusterRole('cluster-admin', clusterAdminRules),
    aggregated('admin'),
    aggregated('edit', { [`${AGGREGATE}admin`]: 'true' }),
    aggregated('view', { [`${AGGREGATE}edit`]: 'true' }),
    clusterRole('system:aggregate-to-admin', aggregateToAdminRules, { [`${AGGREGATE}admin`]: 'true' }),
    clusterRole('system:aggregate-to-edit', aggregateToEditRules, { [`${AGGREGATE}edit`]: 'true' }),
    clusterRole('system:aggregate-to-view', aggregateToViewRules, { [`${AGGREGATE}view`]: 'true' }),
    clusterRole('system:basic-user', basicUserRules),
    clusterRole('system:discovery', discoveryRules),
    clusterRole('system:public-info-viewer', publicInfoViewerRules),
    clusterRole(CLUSTER_VIEWER_ROLE, clusterViewerRules(resources)),
  ];
  // Stored as kube's aggregation controller leaves them: with their members' rules written in.
  return roles.map((r) => (r.aggregationRule ? { ...r, rules: clusterRoleRules(roles, r.metadata.name!) } : r));
}

/** kube's bootstrap bindings, and the viewer tokens' group bound to `view` and kedge:cluster-viewer. */
export function bootstrapClusterRoleBindings(): RoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', [group(MASTERS_GROUP)]),
    clusterRoleBinding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:discovery', 'system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('kedge:viewers', 'view', [group(VIEWERS_GROUP)]),
    clusterRoleBinding(CLUSTER_VIEWER_ROLE, CLUSTER_VIEWER_ROLE, [group(VIEWERS_GROUP)]),
  ];
}

/** The bootstrap policy alone, in memory: what a cluster's RBAC holds before anyone changes it. */
export function bootstrapRuleSource(resources: readonly ResourceDef[]): RuleSource {
  const roles = bootstrapClusterRoles(resources);
  const bindings = bootstrapClusterRoleBindings();
  return {
    clusterRoleBindings: () => Promise.resolve(bindings),
    roleBindings: () => Promise.resolve([]),
    clusterRoles: () => Promise.resolve(roles),
    role: () => Promise.resolve(undefined),
  };
}
