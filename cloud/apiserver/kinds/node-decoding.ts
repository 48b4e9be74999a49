import type { KubeObject } from '../../../shared/types.js';
import { undecodable } from './config-data.js';

/**
 * The Node fields kedge reads, type-checked as Go's JSON decoding would (400 for a value of the
 * wrong type): a condition list that is not a list, say, would otherwise reach the scheduler
 * and the node controller, whoever wrote it (kubectl, or an edge's status report).
 */
export type Shape = 'string' | 'bool' | 'number' | 'intOrString' | { list: Shape } | { map: Shape } | { fields: Record<string, Shape> };

const text = 'string';

/** Pieces of the workload kinds' shapes: any object, labels and annotations, a label selector. */
export const anyObject: Shape = { fields: {} };
export const labelledMeta: Shape = { fields: { labels: { map: text }, annotations: { map: text } } };
export const selectorShape: Shape = { fields: { matchLabels: { map: text }, matchExpressions: { list: anyObject } } };
const condition: Shape = { fields: { type: text, status: text, reason: text, message: text, lastHeartbeatTime: text, lastTransitionTime: text } };
const nodeShape: Shape = {
  fields: {
    spec: {
      fields: {
        unschedulable: 'bool', podCIDR: text, podCIDRs: { list: text }, providerID: text,
        taints: { list: { fields: { key: text, value: text, effect: text, timeAdded: text } } },
      },
    },
    status: {
      fields: {
        phase: text, conditions: { list: condition }, addresses: { list: { fields: { type: text, address: text } } },
        capacity: { map: text }, allocatable: { map: text }, nodeInfo: { map: text },
      },
    },
  },
};

export function checkNodeTypes(node: KubeObject): void {
  checkTypes(node, nodeShape, 'Node');
}

/** Throws 400, as Go's JSON decoding of `kind` would, at the first value of the wrong type (null and absent pass). */
export function checkTypes(obj: unknown, shape: Shape, kind: string): void {
  check(obj, shape, kind, kind);
}

const scalarTypes: Record<string, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  bool: (v) => typeof v === 'boolean',
  number: (v) => typeof v === 'number',
  intOrString: (v) => typeof v === 'number' || typeof v === 'string',
};

function check(value: unknown, shape: Shape, path: string, kind: string): void {
  if (value === undefined || value === null) return;
  const wrong = (goType: string): Error => undecodable(kind, `json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type ${goType}`);
  if (typeof shape === 'string') {
    if (!scalarTypes[shape]!(value)) throw wrong(shape);
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) throw wrong('list');
    for (const item of value) check(item, shape.list, path, kind);
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw wrong('object');
  const entries = Object.entries(value as Record<string, unknown>);
  if ('map' in shape) for (const [, v] of entries) check(v, shape.map, path, kind);
  else for (const [k, v] of entries) if (Object.hasOwn(shape.fields, k)) check(v, shape.fields[k]!, `${path}.${k}`, kind);
}

function jsonType(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
}
