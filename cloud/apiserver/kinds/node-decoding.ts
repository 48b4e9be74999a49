import type { KubeObject } from '../../../shared/types.js';
import { undecodable } from './config-data.js';

/**
 * The Node fields kedge reads, type-checked as Go's JSON decoding would (400 for a value of the
 * wrong type): a condition list that is not a list, say, would otherwise reach the scheduler
 * and the node controller, whoever wrote it (kubectl, or an edge's status report).
 */
type Shape = 'string' | 'bool' | { list: Shape } | { map: Shape } | { fields: Record<string, Shape> };

const text = 'string';
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
  check(node, nodeShape, 'Node');
}

function check(value: unknown, shape: Shape, path: string): void {
  if (value === undefined || value === null) return;
  const wrong = (goType: string): Error => undecodable('Node', `json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type ${goType}`);
  if (shape === 'string' || shape === 'bool') {
    if (typeof value !== (shape === 'string' ? 'string' : 'boolean')) throw wrong(shape);
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) throw wrong('list');
    for (const item of value) check(item, shape.list, path);
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw wrong('object');
  const entries = Object.entries(value as Record<string, unknown>);
  if ('map' in shape) for (const [, v] of entries) check(v, shape.map, path);
  else for (const [k, v] of entries) if (Object.hasOwn(shape.fields, k)) check(v, shape.fields[k]!, `${path}.${k}`);
}

function jsonType(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
}
