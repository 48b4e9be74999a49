import { parseFlap, parseShape } from '../link-shape/parse.js';
import type { Fields } from './fields.js';
import type { NodeCheck } from './parse-expect.js';
import type { FlapStep, ShapeStep } from './types.js';

/**
 * `shape: { node: edge-1, profile: satellite }`, with fields (latency: 600ms, jitter, loss: 2%,
 * rate: 64kbit, rateUp, rateDown, seed) or `clear: true`; `flap: { node: edge-1, down: 5s,
 * every: 30s }` (seed) or `stop: true`. Checked as `kedge link shape|flap` checks its flags.
 */
export function linkStep(f: Fields, kind: 'shape' | 'flap', check: NodeCheck): ShapeStep | FlapStep | undefined {
  f.only([kind]);
  const inner = f.nested(kind);
  if (!inner) return undefined;
  const node = check(inner, 'node');
  const fields = Object.fromEntries(Object.entries(inner.map).filter(([key]) => key !== 'node'));
  const parsed = kind === 'shape' ? parseShape(fields) : parseFlap(fields);
  for (const p of parsed.problems ?? []) inner.problem(p.field, p.message);
  if (node === undefined || !parsed.value) return undefined;
  return kind === 'shape' ? { kind, node, request: parsed.value as ShapeStep['request'] } : { kind, node, request: parsed.value as FlapStep['request'] };
}
