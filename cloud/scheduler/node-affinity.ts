import type { Pod } from '../../shared/types.js';

/** core/v1 NodeSelectorRequirement, NodeSelectorTerm and NodeAffinity (not in shared/types). */
export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}
export interface PreferredSchedulingTerm {
  weight: number;
  preference: NodeSelectorTerm;
}
export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

const INTEGER = /^[+-]?\d+$/;

/** One requirement against a label (or field) set, as k8s.io/apimachinery's labels.Requirement. */
export function matchesRequirement(req: NodeSelectorRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      // Both sides must be integers; anything else matches nothing.
      if (!has || values.length !== 1 || !INTEGER.test(value!) || !INTEGER.test(values[0]!)) return false;
      const [actual, bound] = [BigInt(value!), BigInt(values[0]!)];
      return req.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

/** A term matches when all its expressions (and fields) do; a term with neither matches nothing. */
export function matchesTerm(term: NodeSelectorTerm, labels: Readonly<Record<string, string>>, fields: Readonly<Record<string, string>> = {}): boolean {
  const expressions = term.matchExpressions ?? [];
  const fieldReqs = term.matchFields ?? [];
  if (expressions.length === 0 && fieldReqs.length === 0) return false;
  return expressions.every((r) => matchesRequirement(r, labels)) && fieldReqs.every((r) => matchesRequirement(r, fields));
}

export const nodeAffinityOf = (pod: Pod): NodeAffinity | undefined => (pod.spec.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;
