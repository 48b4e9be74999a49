import type { KubeObject } from '../../shared/types.js';
import { selectorOf, type Fields } from './fields.js';
import { objectProblems } from './manifests.js';
import { quorumExpectation } from './parse-quorum.js';
import { parseLeadersExpectation } from './cloud-step.js';
import { service } from './parse-service.js';
import { POD_PHASES, type Expectation, type PodsExpectation } from './types.js';

const COMMON = ['expect', 'within', 'for', 'measure', 'bytes'];

/** The fields each kind of expectation takes, besides within, for, measure and bytes. */
export const EXPECT_FIELDS = {
  pods: ['view', 'node', 'namespace', 'selector', 'phase', 'ready', 'scheduled', 'minRestarts', 'maxRestarts', 'waiting', 'message', 'count', 'min', 'max'],
  node: ['node', 'ready'],
  deployment: ['name', 'namespace', 'available'],
  connection: ['node', 'connected'],
  rejected: ['create', 'status'],
  file: ['node', 'selector', 'namespace', 'container', 'path', 'contains'],
  service: ['node', 'service', 'namespace', 'port', 'path', 'requests', 'answers', 'servedBy', 'includes', 'excludes'],
  write: ['succeeds', 'status'],
  written: [],
  read: ['consistency', 'answers'],
  leaders: ['held', 'sole', 'moved'],
} as const;

export type ExpectKind = keyof typeof EXPECT_FIELDS;
export const EXPECT_KINDS = Object.keys(EXPECT_FIELDS) as ExpectKind[];

const MANY = 100_000;

/** The field's node name (or `given`) when it is a node of this scenario (edge-1 … edge-N). */
export type NodeCheck = (f: Fields, field: string, given?: string) => string | undefined;

function pods(f: Fields, node: NodeCheck): PodsExpectation | undefined {
  const view = f.oneOf('view', ['cloud', 'edge'] as const) ?? 'cloud';
  const count = f.int('count', 0, MANY);
  const min = f.int('min', 0, MANY);
  const max = f.int('max', 0, MANY);
  if (count !== undefined && (f.has('min') || f.has('max'))) f.problem('count', 'give either count or min/max, not both');
  if (!f.has('count') && !f.has('min') && !f.has('max')) f.problem(undefined, 'say how many pods: count, min or max');
  if (view === 'edge' && f.has('scheduled')) f.problem('scheduled', "the edge's view holds only pods scheduled to it");
  const out: PodsExpectation = { kind: 'pods', view, min: count ?? min ?? 0, max: count ?? max ?? MANY };
  if (out.min > out.max) f.problem('min', `min ${out.min} is above max ${out.max}`);
  const optional = {
    node: f.has('node') ? node(f, 'node') : undefined,
    namespace: f.string('namespace'),
    selector: selectorOf(f),
    phase: f.oneOf('phase', POD_PHASES),
    ready: f.bool('ready'),
    scheduled: f.bool('scheduled'),
    minRestarts: f.int('minRestarts', 0, MANY),
    maxRestarts: f.int('maxRestarts', 0, MANY),
    waiting: f.string('waiting'),
    message: f.string('message'),
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(out, { [key]: value });
  return out;
}

function rejected(f: Fields): Expectation | undefined {
  const object = f.map.create;
  if (object === undefined) return f.problem('create', 'required: the object whose creation is to fail');
  const problems = objectProblems(object);
  for (const p of problems) f.problem('create', p);
  const status = f.int('status', 400, 599);
  if (problems.length > 0) return undefined;
  return status === undefined ? { kind: 'rejected', object: object as KubeObject } : { kind: 'rejected', object: object as KubeObject, status };
}

function file(f: Fields, node: NodeCheck): Expectation | undefined {
  const [name, selector, path, contains] = [node(f, 'node'), f.has('selector') ? selectorOf(f) : f.problem('selector', 'required: the labels of the pod'), f.string('path', true), f.string('contains', true)];
  if (path !== undefined && !path.startsWith('/')) f.problem('path', `expected an absolute path in the container, got "${path}"`);
  if (!name || !selector || !path?.startsWith('/') || contains === undefined) return undefined;
  const container = f.string('container');
  return { kind: 'file', node: name, selector, namespace: f.string('namespace') ?? 'default', path, contains, ...(container !== undefined && { container }) };
}

/** The expectation of an `expect` step, its kind named by the value of `expect`; `etcdMembers`: the scenario's `etcd`. */
export function parseExpectation(f: Fields, node: NodeCheck, etcdMembers?: number): Expectation | undefined {
  const kind = f.oneOf('expect', EXPECT_KINDS, true);
  if (kind === undefined) return undefined;
  f.only([...COMMON, ...EXPECT_FIELDS[kind]]);
  switch (kind) {
    case 'pods':
      return pods(f, node);
    case 'node': {
      const [name, ready] = [node(f, 'node'), f.oneOf('ready', ['True', 'False', 'Unknown'] as const, true)];
      return name && ready ? { kind, node: name, ready } : undefined;
    }
    case 'deployment': {
      const [name, available] = [f.string('name', true), f.int('available', 0, MANY, true)];
      return name && available !== undefined ? { kind, name, namespace: f.string('namespace') ?? 'default', available } : undefined;
    }
    case 'connection': {
      const [name, connected] = [node(f, 'node'), f.bool('connected', true)];
      return name && connected !== undefined ? { kind, node: name, connected } : undefined;
    }
    case 'rejected':
      return rejected(f);
    case 'file':
      return file(f, node);
    case 'service':
      return service(f, node);
    case 'leaders':
      return parseLeadersExpectation(f);
    default:
      return quorumExpectation(f, kind, etcdMembers);
  }
}
