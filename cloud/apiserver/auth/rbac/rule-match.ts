import type { PolicyRule } from './types.js';

/** What a request asks, in the terms RBAC rules speak (authz.ts Attributes without the facts). */
export interface RequestAttributes {
  verb: string;
  resource?: string;
  subresource?: string;
  group?: string;
  name?: string;
  path: string;
}

const ALL = '*';

/** kube's RuleAllows (plugin/pkg/auth/authorizer/rbac): a resource rule for a resource request, a non-resource rule for a path. */
export function ruleAllows(rule: PolicyRule, attrs: RequestAttributes): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (attrs.resource === undefined) return nonResourceURLMatches(rule, attrs.path);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return apiGroupMatches(rule, attrs.group ?? '') && resourceMatches(rule, combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

export const verbMatches = (rule: PolicyRule, verb: string): boolean => rule.verbs.some((v) => v === ALL || v === verb);

const apiGroupMatches = (rule: PolicyRule, group: string): boolean => (rule.apiGroups ?? []).some((g) => g === ALL || g === group);

/** `*`, the exact "resource/subresource", or "*\/subresource" for any resource's subresource. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string | undefined): boolean {
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (subresource !== undefined && r === `*/${subresource}`));
}

/** No names: every object; names: only a request naming one of them (so never a list or a create). */
function resourceNameMatches(rule: PolicyRule, name: string | undefined): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (name !== undefined && names.includes(name));
}

/** `*`, the exact path, or a prefix ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((url) => url === ALL || url === path || (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))));
}
