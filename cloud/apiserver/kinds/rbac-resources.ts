import { RBAC_GROUP, type Role, type RoleBinding } from '../auth/rbac/types.js';
import { rolePrinter, roleBindingPrinter } from './rbac-printers.js';
import { defaultBinding, validateBinding, validateRules } from './rbac-validation.js';
import type { ResourceDef, ResourceStrategy } from './registry.js';

/** rbac.authorization.k8s.io/v1: what the RBAC authorizer (auth/rbac/) evaluates. */

const base = { group: RBAC_GROUP, version: 'v1', shortNames: [], categories: [], subresources: [] };

const roleStrategy = (namespaced: boolean): ResourceStrategy => ({
  nameIsPathSegment: true,
  validate: (obj) => validateRules(obj as Role, namespaced),
});

const bindingStrategy = (namespaced: boolean): ResourceStrategy => ({
  nameIsPathSegment: true,
  normalize: (obj) => defaultBinding(obj as RoleBinding),
  validate: (obj, ctx) => validateBinding(obj as RoleBinding, namespaced, ctx),
});

export const roleResource: ResourceDef = { ...base, resource: 'roles', singular: 'role', kind: 'Role', namespaced: true, printer: rolePrinter, strategy: roleStrategy(true) };
export const clusterRoleResource: ResourceDef = { ...base, resource: 'clusterroles', singular: 'clusterrole', kind: 'ClusterRole', namespaced: false, printer: rolePrinter, strategy: roleStrategy(false) };
export const roleBindingResource: ResourceDef = { ...base, resource: 'rolebindings', singular: 'rolebinding', kind: 'RoleBinding', namespaced: true, printer: roleBindingPrinter, strategy: bindingStrategy(true) };
export const clusterRoleBindingResource: ResourceDef = {
  ...base, resource: 'clusterrolebindings', singular: 'clusterrolebinding', kind: 'ClusterRoleBinding', namespaced: false, printer: roleBindingPrinter, strategy: bindingStrategy(false),
};

export const rbacResources: ResourceDef[] = [clusterRoleBindingResource, clusterRoleResource, roleBindingResource, roleResource];
