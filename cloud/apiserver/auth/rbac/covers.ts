import type { PolicyRule } from './types.js';

/** kube's Covers (pkg/registry/rbac/validation/policy_comparator.go) and CompactString, for the escalation check. */

const ALL = '*';
const hasAll = (owner: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => owner.includes(w));

/** One rule per group × resource × verb (× name), and per URL × verb: kube's BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourceCovers(owner: readonly string[], wanted: string): boolean {
  if (owner.includes(ALL) || owner.includes(wanted)) return true;
  const slash = wanted.indexOf('/');
  return slash >= 0 && owner.includes(`*${wanted.slice(slash)}`);
}

const urlCovers = (owner: string, wanted: string): boolean => owner === wanted || (owner.endsWith(ALL) && wanted.startsWith(owner.slice(0, -1)));

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes(ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes(ALL) || hasAll(owner.apiGroups ?? [], sub.apiGroups ?? []);
  const resources = (sub.resources ?? []).every((r) => resourceCovers(owner.resources ?? [], r));
  const urls = (sub.nonResourceURLs ?? []).every((u) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, u)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames ?? []);
  return verbs && groups && resources && urls && names;
}

/** The broken-down parts of `wanted` that no rule of `owner` covers (empty: covered). */
export function uncovered(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

/** kube's CompactRules: the rules of one group, one resource and at most one name merge their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, PolicyRule>();
  const rest: PolicyRule[] = [];
  for (const rule of rules) {
    const isSimple = (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1 && (rule.resourceNames ?? []).length <= 1 && (rule.nonResourceURLs ?? []).length === 0;
    if (!isSimple) {
      rest.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []]);
    const seen = simple.get(key);
    if (seen) seen.verbs = [...seen.verbs, ...rule.verbs];
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...rest, ...simple.values()];
}

/** Go's %q of a []string: ["a" "b"]. */
export const goQuoted = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

/** kube's CompactString: {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}, empty fields left out. */
export function compactString(rule: PolicyRule): string {
  const parts: [string, string[] | undefined][] = [
    ['APIGroups', rule.apiGroups], ['Resources', rule.resources], ['ResourceNames', rule.resourceNames], ['NonResourceURLs', rule.nonResourceURLs], ['Verbs', rule.verbs],
  ];
  return `{${parts.filter(([, v]) => (v ?? []).length > 0).map(([k, v]) => `${k}:${goQuoted(v!)}`).join(', ')}}`;
}
