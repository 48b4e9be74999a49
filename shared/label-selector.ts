import type { LabelSelector, LabelSelectorRequirement } from './apps-types.js';

/**
 * meta/v1 LabelSelector semantics, as apimachinery's LabelSelectorAsSelector: all terms must
 * hold; an empty selector matches everything, a missing one nothing.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(have, key);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(key) || have[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((r) => requirementHolds(r, has(r.key), have[r.key]));
}

function requirementHolds(r: LabelSelectorRequirement, present: boolean, value: string | undefined): boolean {
  switch (r.operator) {
    case 'In':
      return present && (r.values ?? []).includes(value!);
    case 'NotIn':
      return !present || !(r.values ?? []).includes(value!);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    default:
      return false;
  }
}

/** True when the selector has no terms at all (it would select everything). */
export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** The selector as a string ("app=web,tier in (a,b)"): terms sorted by key, as labels.Selector.String(). */
export function selectorString(selector: LabelSelector | undefined): string {
  if (!selector) return '';
  const terms: { key: string; text: string }[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, text: `${key}=${value}` }));
  for (const r of selector.matchExpressions ?? []) terms.push({ key: r.key, text: requirementString(r) });
  return terms
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((t) => t.text)
    .join(',');
}

function requirementString(r: LabelSelectorRequirement): string {
  const values = `(${[...(r.values ?? [])].sort().join(',')})`;
  switch (r.operator) {
    case 'In':
      return `${r.key} in ${values}`;
    case 'NotIn':
      return `${r.key} notin ${values}`;
    case 'Exists':
      return r.key;
    default:
      return `!${r.key}`;
  }
}
