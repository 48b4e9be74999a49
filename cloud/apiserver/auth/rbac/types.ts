import type { LabelSelector } from '../../../../shared/apps-types.js';
import type { KubeObject } from '../../../../shared/types.js';

/** rbac.authorization.k8s.io/v1 objects, as kube serves them. */

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends Role {
  aggregationRule?: AggregationRule;
}

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** What RBAC evaluates against: the bindings and roles, stored (stored-rules.ts) or built in (bootstrap-policy.ts). */
export interface RuleSource {
  clusterRoleBindings(): Promise<RoleBinding[]>;
  /** The RoleBindings of one namespace. */
  roleBindings(namespace: string): Promise<RoleBinding[]>;
  clusterRoles(): Promise<ClusterRole[]>;
  role(namespace: string, name: string): Promise<Role | undefined>;
}
