import { isMapping, selectorOf, type Fields } from './fields.js';
import type { NodeCheck } from './parse-expect.js';
import type { PodRef, ServiceExpectation } from './types.js';

const MANY = 100_000;
const DEFAULT_REQUESTS = 10;
/** A pod's name (a DNS subdomain); any other text is read as a label selector. */
const POD_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** `includes`/`excludes`: a pod's name, a selector (`app=echo`), or `{ name }` / `{ selector, newest }`. */
function podRef(f: Fields, field: string): PodRef | undefined {
  const value = f.map[field];
  if (typeof value === 'string') {
    if (POD_NAME.test(value)) return { name: value };
    const selector = selectorOf(f, field);
    return selector === undefined ? undefined : { selector };
  }
  if (!isMapping(value)) return f.problem(field, `expected a pod's name, a selector, or { name } or { selector, newest }, got ${JSON.stringify(value)}`);
  const inner = f.nested(field)!;
  inner.only(['name', 'selector', 'newest']);
  const [name, selector, newest] = [inner.string('name'), selectorOf(inner), inner.int('newest', 1, MANY)];
  if (inner.has('name') === inner.has('selector')) return f.problem(field, 'give a pod name or a selector, not both');
  if (newest !== undefined && !inner.has('selector')) return inner.problem('newest', 'newest goes with a selector');
  if (name !== undefined) return { name };
  if (selector === undefined) return undefined;
  return newest === undefined ? { selector } : { selector, newest };
}

/** `servedBy: 2`, or `servedBy: { min: 1, max: 2 }`. */
function servedBy(f: Fields): { min: number; max: number } | undefined {
  if (typeof f.map.servedBy === 'number') {
    const n = f.int('servedBy', 0, MANY);
    return n === undefined ? undefined : { min: n, max: n };
  }
  const inner = f.nested('servedBy');
  if (!inner) return undefined;
  inner.only(['min', 'max']);
  const [min, max] = [inner.int('min', 0, MANY), inner.int('max', 0, MANY)];
  if (!inner.has('min') && !inner.has('max')) return f.problem('servedBy', 'give min, max or both');
  const range = { min: min ?? 0, max: max ?? MANY };
  if (range.min > range.max) return inner.problem('min', `min ${range.min} is above max ${range.max}`);
  return range;
}

function port(f: Fields): number | string | undefined {
  return typeof f.map.port === 'number' ? f.int('port', 1, 65_535) : f.string('port');
}

/** The `service` expectation: HTTP GETs to a node's address and a Service's nodePort. */
export function service(f: Fields, node: NodeCheck): ServiceExpectation | undefined {
  const [name, nodeName, path] = [f.string('service', true), node(f, 'node'), f.string('path') ?? '/'];
  if (!path.startsWith('/')) f.problem('path', `expected a path starting with /, got "${path}"`);
  const e: ServiceExpectation = { kind: 'service', service: name ?? '', namespace: f.string('namespace') ?? 'default', node: nodeName ?? '', path, requests: f.int('requests', 1, 1000) ?? DEFAULT_REQUESTS };
  const optional = {
    port: f.has('port') ? port(f) : undefined,
    answers: f.bool('answers'),
    servedBy: f.has('servedBy') ? servedBy(f) : undefined,
    includes: f.has('includes') ? podRef(f, 'includes') : undefined,
    excludes: f.has('excludes') ? podRef(f, 'excludes') : undefined,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(e, { [key]: value });
  const judged = ['answers', 'servedBy', 'includes', 'excludes'].filter((k) => f.has(k));
  if (judged.length === 0) return f.problem(undefined, 'say what to expect of the answers: answers, servedBy, includes or excludes');
  if (e.answers === false && (f.has('includes') || (e.servedBy?.min ?? 0) > 0)) f.problem('answers', 'answers: false cannot go with includes or a servedBy minimum');
  const complete = name && nodeName && path.startsWith('/') && judged.every((k) => e[k as keyof ServiceExpectation] !== undefined) && (!f.has('port') || e.port !== undefined);
  return complete ? e : undefined;
}
