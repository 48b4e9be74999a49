import type { StatusCause } from '../../../shared/errors.js';
import { invalidValue, required, unsupported } from '../admission/admission.js';
import { RBAC_GROUP, type PolicyRule, type Role, type RoleBinding, type Subject } from '../auth/rbac/types.js';
import type { AdmissionContext } from './registry.js';

/** kube's RBAC validation (pkg/apis/rbac/validation) and defaulting (SetDefaults_Subject, SetDefaults_RoleBinding). */

const requiredBecause = (field: string, why: string): StatusCause => ({ ...required(field), message: `Required value: ${why}` });

export function validateRules(role: Role, namespaced: boolean): StatusCause[] {
  return (role.rules ?? []).flatMap((rule, i) => validateRule(rule, `rules[${i}]`, namespaced));
}

function validateRule(rule: PolicyRule, at: string, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((rule.verbs ?? []).length === 0) causes.push(requiredBecause(`${at}.verbs`, 'verbs must contain at least one value'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) {
    if (namespaced) causes.push(invalidValue(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if ((rule.apiGroups ?? []).length + (rule.resources ?? []).length + (rule.resourceNames ?? []).length > 0) {
      causes.push(invalidValue(`${at}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if ((rule.apiGroups ?? []).length === 0) causes.push(requiredBecause(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
  if ((rule.resources ?? []).length === 0) causes.push(requiredBecause(`${at}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}

export function defaultBinding(binding: RoleBinding): void {
  if (binding.roleRef && !binding.roleRef.apiGroup) binding.roleRef.apiGroup = RBAC_GROUP;
  for (const s of binding.subjects ?? []) if (s.apiGroup === undefined) s.apiGroup = s.kind === 'ServiceAccount' ? '' : RBAC_GROUP;
}

export function validateBinding(binding: RoleBinding, namespaced: boolean, ctx: AdmissionContext): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref = binding.roleRef;
  if (!ref) return [required('roleRef')];
  if (ref.apiGroup !== RBAC_GROUP) causes.push(unsupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) causes.push(unsupported('roleRef.kind', ref.kind, kinds));
  if (!ref.name) causes.push(required('roleRef.name'));
  (binding.subjects ?? []).forEach((s, i) => causes.push(...validateSubject(s, `subjects[${i}]`, namespaced)));
  const old = ctx.old as RoleBinding | undefined;
  if (ctx.operation === 'update' && old && JSON.stringify(old.roleRef) !== JSON.stringify(ref)) causes.push(invalidValue('roleRef', ref, 'cannot change roleRef'));
  return causes;
}

function validateSubject(s: Subject, at: string, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!s.name) causes.push(required(`${at}.name`));
  if (s.kind === 'ServiceAccount') {
    if (s.apiGroup !== '') causes.push(unsupported(`${at}.apiGroup`, s.apiGroup, ['']));
    if (!namespaced && !s.namespace) causes.push(required(`${at}.namespace`));
  } else if (s.kind === 'User' || s.kind === 'Group') {
    if (s.apiGroup !== RBAC_GROUP) causes.push(unsupported(`${at}.apiGroup`, s.apiGroup, [RBAC_GROUP]));
  } else {
    causes.push(unsupported(`${at}.kind`, s.kind, ['ServiceAccount', 'User', 'Group']));
  }
  return causes;
}
