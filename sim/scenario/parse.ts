import { parseDocument } from 'yaml';
import type { KubeObject } from '../../shared/types.js';
import { Fields, isMapping, type Mapping } from './fields.js';
import { findKind, objectProblems } from './manifests.js';
import { parseCloudStep } from './cloud-step.js';
import { parseExpectation, type NodeCheck } from './parse-expect.js';
import { linkStep } from './parse-link.js';
import { etcdStep, MAX_ETCD_MEMBERS } from './parse-quorum.js';
import { EDGE_ACTIONS, type EdgeAction, type Scenario, type Step, type StepKind } from './types.js';

/** A scenario file that cannot be run: every problem names where it is. */
export class ScenarioFileError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(problems.length === 1 ? `${source}: ${problems[0]}` : `${source}:\n  ${problems.join('\n  ')}`);
    this.name = 'ScenarioFileError';
  }
}

const STEP_KINDS: readonly StepKind[] = ['apply', 'delete', 'scale', ...EDGE_ACTIONS, 'shape', 'flap', 'stop', 'start', 'etcd', 'wait', 'cloud', 'expect'];
const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
export const MAX_NODES = 20;
export const MAX_CLOUDS = 5;

export const nodeNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `edge-${i + 1}`);

function nodeCheck(count: number): NodeCheck {
  const known = nodeNames(count);
  return (f, field, given) => {
    const name = given ?? f.string(field, true);
    if (name === undefined || known.includes(name)) return name;
    return f.problem(field, `"${name}" is not a node of this scenario (${known.join(', ')})`);
  };
}

function apply(f: Fields): Step | undefined {
  f.only(['apply']);
  const value = f.map.apply;
  if (typeof value === 'string' && value.trim() !== '') return { kind: 'apply', path: value, objects: [] };
  const objects = Array.isArray(value) ? value : [value];
  if (objects.length === 0) return f.problem('apply', 'expected a manifest path, an object or a list of objects');
  const problems = objects.flatMap((o, i) => objectProblems(o).map((p) => (objects.length > 1 ? `object ${i + 1}: ${p}` : p)));
  for (const p of problems) f.problem('apply', p);
  return problems.length > 0 ? undefined : { kind: 'apply', objects: objects as KubeObject[] };
}

/** `delete: deployment/web`, or `delete: pod` with a name, or a selector and how many to delete. */
function del(f: Fields): Step | undefined {
  f.only(['delete', 'name', 'selector', 'count', 'namespace']);
  const [kindText, nameInline] = (f.string('delete', true) ?? '').split('/', 2);
  const target = kindText ? findKind(kindText) : undefined;
  if (kindText && !target) return f.problem('delete', `unknown kind "${kindText}"`);
  const name = nameInline ?? f.string('name');
  const selector = f.string('selector');
  const count = f.int('count', 1, 100_000);
  if (!target) return undefined;
  if ((name === undefined) === (selector === undefined)) return f.problem(undefined, 'name the object (kind/name or name) or give a selector, not both');
  if (count !== undefined && selector === undefined) return f.problem('count', 'count goes with a selector');
  const step: Step = { kind: 'delete', target, namespace: f.string('namespace') ?? 'default' };
  if (name !== undefined) step.name = name;
  if (selector !== undefined) step.selector = selector;
  if (count !== undefined) step.count = count;
  return step;
}

function scale(f: Fields): Step | undefined {
  f.only(['scale', 'replicas', 'namespace']);
  const deployment = f.string('scale', true);
  const replicas = f.int('replicas', 0, 10_000, true);
  return deployment && replicas !== undefined ? { kind: 'scale', deployment, replicas, namespace: f.string('namespace') ?? 'default' } : undefined;
}

function edge(f: Fields, kind: EdgeAction, check: NodeCheck): Step | undefined {
  f.only([kind]);
  const names = f.strings(kind);
  if (!names) return undefined;
  const nodes = names.map((n) => check(f, kind, n));
  if (new Set(names).size !== names.length) f.problem(kind, 'a node is named twice');
  return nodes.every((n) => n !== undefined) ? { kind, nodes: nodes as string[] } : undefined;
}

/** `stop: scheduler` (the cloud's), or `stop: kube-proxy` with `node: edge-1` (that edge's own). */
function component(f: Fields, kind: 'stop' | 'start', check: NodeCheck): Step | undefined {
  f.only([kind, 'node']);
  const name = f.string(kind, true);
  const node = f.has('node') ? check(f, 'node') : undefined;
  if (!name || (f.has('node') && !node)) return undefined;
  return node === undefined ? { kind, component: name } : { kind, component: name, node };
}

/** What a step is checked against: the scenario's nodes, etcd members and clouds. */
interface Context {
  check: NodeCheck;
  etcd?: number;
  clouds: number;
}

function step(value: unknown, index: number, { check, etcd, clouds }: Context, problems: string[]): Step | undefined {
  const where = `step ${index + 1}`;
  if (!isMapping(value)) {
    problems.push(`${where}: expected a mapping with one of ${STEP_KINDS.join(', ')}`);
    return undefined;
  }
  const kinds = STEP_KINDS.filter((k) => value[k] !== undefined);
  if (kinds.length !== 1) {
    const found = kinds.length === 0 ? `none in ${Object.keys(value).join(', ') || 'an empty mapping'}` : kinds.join(' and ');
    problems.push(`${where}: expected exactly one of ${STEP_KINDS.join(', ')}; found ${found}`);
    return undefined;
  }
  const kind = kinds[0]!;
  const f = new Fields(value, kind === 'expect' ? `${where} (expect: ${String(value.expect)})` : `${where} (${kind})`, problems);
  switch (kind) {
    case 'apply':
      return apply(f);
    case 'delete':
      return del(f);
    case 'scale':
      return scale(f);
    case 'stop':
    case 'start':
      return component(f, kind, check);
    case 'etcd':
      return etcdStep(f, etcd);
    case 'wait': {
      f.only(['wait']);
      const ms = f.duration('wait', true);
      return ms === undefined ? undefined : { kind, ms };
    }
    case 'expect':
      return expectStep(f, check, etcd);
    case 'cloud':
      return parseCloudStep(f, clouds);
    case 'shape':
    case 'flap':
      return linkStep(f, kind, check);
    default:
      return edge(f, kind, check);
  }
}

function expectStep(f: Fields, check: NodeCheck, etcd: number | undefined): Step | undefined {
  const expectation = parseExpectation(f, check, etcd);
  const withinMs = f.duration('within') ?? 0;
  const forMs = f.duration('for') ?? 0;
  const measure = f.string('measure');
  const bytes = f.has('bytes') ? check(f, 'bytes') : undefined;
  if (bytes !== undefined && measure === undefined) f.problem('bytes', 'bytes goes with measure: name what is measured');
  if (!expectation) return undefined;
  return { kind: 'expect', expectation, withinMs, forMs, ...(measure !== undefined && { measure }), ...(bytes !== undefined && { bytes }) };
}

/** `keepalive: 10s`: the edges' MQTT keepalive, whole seconds from 1 s to 10m, with one cloud. */
function keepalive(top: Fields, clouds: number): number | undefined {
  const ms = top.duration('keepalive');
  if (ms === undefined) return undefined;
  if (ms % 1000 !== 0 || ms < 1000 || ms > 600_000) return top.problem('keepalive', 'expected whole seconds from 1s to 10m (MQTT counts it in seconds)');
  if (clouds > 1) return top.problem('keepalive', 'with several clouds the edges keep the demo keepalive');
  return ms / 1000;
}

/** Validates a parsed scenario document; throws a ScenarioFileError listing every problem. Pure. */
export function parseScenario(doc: unknown, source: string): Scenario {
  const problems: string[] = [];
  if (!isMapping(doc)) throw new ScenarioFileError(source, ['expected a mapping with name, description and steps']);
  const top = new Fields(doc, 'scenario', problems);
  top.only(['name', 'description', 'nodes', 'clouds', 'timeScale', 'etcd', 'keepalive', 'steps']);
  const name = top.string('name', true);
  if (name !== undefined && !NAME.test(name)) top.problem('name', `"${name}" is not a name of lower-case letters, digits and '-'`);
  const description = top.string('description', true);
  const nodes = top.int('nodes', 1, MAX_NODES) ?? 3;
  const clouds = top.int('clouds', 1, MAX_CLOUDS) ?? 1;
  const timeScale = top.positive('timeScale') ?? 1;
  const etcd = top.int('etcd', 1, MAX_ETCD_MEMBERS);
  const keepaliveSeconds = keepalive(top, clouds);
  const rawSteps = doc.steps;
  if (!Array.isArray(rawSteps) || rawSteps.length === 0) top.problem('steps', 'expected a non-empty list of steps');
  const check = nodeCheck(nodes);
  const steps = (Array.isArray(rawSteps) ? rawSteps : []).map((s, i) => step(s, i, { check, clouds, ...(etcd !== undefined && { etcd }) }, problems));
  if (problems.length > 0) throw new ScenarioFileError(source, problems);
  return { name: name!, description: description!, nodes, ...(clouds > 1 && { clouds }), timeScale, ...(etcd !== undefined && { etcd }), ...(keepaliveSeconds !== undefined && { keepaliveSeconds }), steps: steps as Step[] };
}

/** Parses and validates a scenario file's text (YAML). */
export function parseScenarioText(text: string, source: string): Scenario {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) throw new ScenarioFileError(source, doc.errors.map((e) => `not valid YAML: ${e.message}`));
  return parseScenario(doc.toJS() as Mapping | null, source);
}
