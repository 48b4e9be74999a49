import { KedgeError } from '../../../shared/errors.js';

/**
 * Label selectors (k=v, k==v, k!=v, k in (a,b), k notin (a,b), k, !k) and field selectors
 * (k=v, k==v, k!=v, values may be empty), parsed once into predicates.
 */
export type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

export type Selector = (values: Record<string, string>) => boolean;

export const everything: Selector = () => true;

export function parseLabelSelector(text: string | null | undefined): Selector {
  const reqs = splitTopLevel(text ?? '').map(parseLabelRequirement);
  return reqs.length === 0 ? everything : (labels) => reqs.every((r) => matches(r, labels));
}

/** `known` lists the field names the kind supports; others are a BadRequest. */
export function parseFieldSelector(text: string | null | undefined, known: readonly string[]): Selector {
  const reqs = splitTopLevel(text ?? '').map(parseFieldRequirement);
  for (const r of reqs) {
    if (!known.includes(r.key)) throw new KedgeError('BadRequest', `field label not supported: ${r.key}`);
  }
  return reqs.length === 0 ? everything : (fields) => reqs.every((r) => matches(r, fields));
}

function matches(r: Requirement, values: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(values, r.key);
  const v = has ? values[r.key] : undefined;
  switch (r.op) {
    case 'eq':
      return (v ?? '') === r.value && (has || r.value === '');
    case 'neq':
      return (v ?? '') !== r.value;
    case 'in':
      return has && r.values.includes(v!);
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case 'notexists':
      return !has;
  }
}

function parseLabelRequirement(term: string): Requirement {
  const set = /^([^\s!=()]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = set[3]!.split(',').map((v) => v.trim()).filter((v, i, all) => v !== '' || all.length === 1);
    return { op: set[2] as 'in' | 'notin', key: set[1]!, values };
  }
  if (/^![^=!\s]+$/.test(term)) return { op: 'notexists', key: term.slice(1) };
  if (/^[^=!\s]+$/.test(term)) return { op: 'exists', key: term };
  return parseFieldRequirement(term);
}

function parseFieldRequirement(term: string): Requirement {
  const m = /^([^=!\s]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
  if (!m || m[1] === '') throw new KedgeError('BadRequest', `unable to parse requirement: ${JSON.stringify(term)}`);
  return { op: m[2] === '!=' ? 'neq' : 'eq', key: m[1]!, value: m[3]!.trim() };
}

/** Splits on commas that are not inside parentheses; drops empty terms. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}
