import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinScenarios, loadScenarioFile, resolveScenario, UnknownScenarioError } from '../../sim/scenario/catalog.js';
import { describeStep } from '../../sim/scenario/describe.js';
import { parseScenario, parseScenarioText } from '../../sim/scenario/parse.js';
import { problemsOf, withSteps } from './scenario-problems.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const base = { name: 'demo', description: 'A test.' };

describe('scenario files: what parses', () => {
  it('reads every kind of step, with defaults', () => {
    const s = parseScenarioText(
      `name: all-steps
description: Every step once.
nodes: 2
timeScale: 20
steps:
  - apply: examples/deployment.yaml
  - apply: { apiVersion: v1, kind: Pod, metadata: { name: p }, spec: { containers: [] } }
  - delete: deployment/web
  - delete: pod
    selector: app=web
    count: 1
  - scale: web
    replicas: 5
  - cut: edge-1
  - heal: [edge-1, edge-2]
  - crash: edge-2
  - restart: edge-2
  - reboot: [edge-1, edge-2]
  - stop: scheduler
  - start: scheduler
  - wait: 1m30s
  - expect: pods
    view: edge
    node: edge-1
    selector: app=web
    phase: Running
    ready: true
    min: 2
    within: 40s
    for: 10s
    measure: pods back
  - expect: node
    node: edge-2
    ready: Unknown
  - expect: deployment
    name: web
    available: 3
  - expect: connection
    node: edge-1
    connected: false
  - expect: rejected
    create: { apiVersion: v1, kind: Pod, metadata: { name: late }, spec: { containers: [] } }
    status: 503
  - expect: file
    node: edge-1
    selector: app=sensor
    path: /etc/sensor/unit
    contains: kelvin
    within: 20s
`,
      'all.yaml',
    );
    expect(s).toMatchObject({ name: 'all-steps', nodes: 2, timeScale: 20 });
    expect(s.steps.map(describeStep)).toEqual([
      'apply examples/deployment.yaml',
      'apply pod/p',
      'delete deployment/web',
      'delete 1 pod app=web',
      'scale deployment/web to 5',
      'cut edge-1',
      'heal edge-1, edge-2',
      'crash edge-2',
      'restart edge-2',
      'reboot edge-1, edge-2',
      'stop scheduler',
      'start scheduler',
      'wait 1m30s',
      'expect at least 2 pods app=web Running ready on edge-1 (as edge-1 sees it) within 40s for 10s',
      'expect edge-2 Ready=Unknown (as the cloud sees it)',
      'expect deployment web: 3 available',
      'expect edge-1 says it is offline',
      'expect creating pod/late fails with HTTP 503',
      'expect /etc/sensor/unit in the app=sensor pod on edge-1 holds "kelvin" (as edge-1 sees it) within 20s',
    ]);
    expect(s.steps[18]).toMatchObject({ expectation: { kind: 'file', node: 'edge-1', selector: 'app=sensor', namespace: 'default', path: '/etc/sensor/unit', contains: 'kelvin' } });
    expect(s.steps[2]).toEqual({ kind: 'delete', target: { kind: 'Deployment', resource: 'deployments', group: 'apps', namespaced: true }, namespace: 'default', name: 'web' });
    expect(s.steps[12]).toEqual({ kind: 'wait', ms: 90_000 });
    expect(s.steps[13]).toEqual({
      kind: 'expect',
      withinMs: 40_000,
      forMs: 10_000,
      measure: 'pods back',
      expectation: { kind: 'pods', view: 'edge', node: 'edge-1', selector: 'app=web', phase: 'Running', ready: true, min: 2, max: 100_000 },
    });
  });

  it('takes the edges\' keepalive in whole seconds (keepalive: 10s); without it, none (the demo\'s)', () => {
    expect(parseScenario({ ...(withSteps({ wait: '1s' }) as object), keepalive: '10s' }, 't').keepaliveSeconds).toBe(10);
    expect(parseScenario(withSteps({ wait: '1s' }), 't').keepaliveSeconds).toBeUndefined();
  });

  it('defaults to 3 nodes, time scale 1, the cloud view, and an expectation checked once', () => {
    const s = parseScenario(withSteps({ expect: 'pods', count: 0 }), 't');
    expect(s).toMatchObject({ nodes: 3, timeScale: 1 });
    expect(s.steps[0]).toEqual({ kind: 'expect', withinMs: 0, forMs: 0, expectation: { kind: 'pods', view: 'cloud', min: 0, max: 0 } });
  });
});

describe('scenario files: what does not, and how it is told', () => {
  it.each([
    ['not a mapping', 'just text', 'expected a mapping with name, description and steps'],
    ['no name', { description: 'd', steps: [{ wait: '1s' }] }, 'scenario, field "name": required'],
    ['a bad name', { ...base, name: 'Big Name', steps: [{ wait: '1s' }] }, 'scenario, field "name": "Big Name" is not a name of lower-case letters, digits and \'-\''],
    ['no steps', base, 'scenario, field "steps": expected a non-empty list of steps'],
    ['an unknown top-level field', { ...base, node: 3, steps: [{ wait: '1s' }] }, 'scenario, field "node": unknown field (allowed here: name, description, nodes, clouds, timeScale, etcd, keepalive, steps)'],
    ['too many nodes', { ...base, nodes: 50, steps: [{ wait: '1s' }] }, 'scenario, field "nodes": expected a whole number from 1 to 20, got 50'],
    ['a keepalive in part seconds', { ...base, keepalive: '1500ms', steps: [{ wait: '1s' }] }, 'scenario, field "keepalive": expected whole seconds from 1s to 10m (MQTT counts it in seconds)'],
    ['a keepalive with several clouds', { ...base, clouds: 2, keepalive: '10s', steps: [{ wait: '1s' }] }, 'scenario, field "keepalive": with several clouds the edges keep the demo keepalive'],
    ['a zero time scale', { ...base, timeScale: 0, steps: [{ wait: '1s' }] }, 'scenario, field "timeScale": expected a number above 0, got 0'],
    ['a step with no action', withSteps({ within: '1s' }), 'step 1: expected exactly one of apply, delete, scale, cut, heal, crash, restart, reboot, shape, flap, stop, start, etcd, wait, cloud, expect; found none in within'],
    ['a step with two actions', withSteps({ cut: 'edge-1', heal: 'edge-1' }), 'step 1: expected exactly one of apply, delete, scale, cut, heal, crash, restart, reboot, shape, flap, stop, start, etcd, wait, cloud, expect; found cut and heal'],
    ['a step that is a list', withSteps(['cut']), 'step 1: expected a mapping with one of apply, delete, scale, cut, heal, crash, restart, reboot, shape, flap, stop, start, etcd, wait, cloud, expect'],
    ['a node beyond the count', withSteps({ wait: '1s' }, { cut: 'edge-4' }), 'step 2 (cut), field "cut": "edge-4" is not a node of this scenario (edge-1, edge-2, edge-3)'],
    ['a node named twice', withSteps({ reboot: ['edge-1', 'edge-1'] }), 'step 1 (reboot), field "reboot": a node is named twice'],
    ['a duration as a number', withSteps({ wait: 30 }), 'step 1 (wait), field "wait": expected a duration such as 30s, 5m or 1m30s, got 30'],
    ['a negative duration', withSteps({ wait: '-5s' }), 'step 1 (wait), field "wait": expected a duration such as 30s, 5m or 1m30s, got "-5s"'],
    ['a field of another step', withSteps({ cut: 'edge-1', within: '5s' }), 'step 1 (cut), field "within": unknown field (allowed here: cut)'],
    ['scale without replicas', withSteps({ scale: 'web' }), 'step 1 (scale), field "replicas": required'],
    ['delete of an unknown kind', withSteps({ delete: 'gizmo/x' }), 'step 1 (delete), field "delete": unknown kind "gizmo"'],
    ['delete with a name and a selector', withSteps({ delete: 'pod/x', selector: 'a=b' }), 'step 1 (delete): name the object (kind/name or name) or give a selector, not both'],
    ['delete count without selector', withSteps({ delete: 'pod', name: 'x', count: 2 }), 'step 1 (delete), field "count": count goes with a selector'],
    ['apply without a kind', withSteps({ apply: { apiVersion: 'v1', metadata: { name: 'x' } } }), 'step 1 (apply), field "apply": kind is missing'],
    ['apply of an unknown kind', withSteps({ apply: [pod, { ...pod, kind: 'Gizmo' }] }), 'step 1 (apply), field "apply": object 2: unknown kind "Gizmo"'],
    ['an unknown expectation', withSteps({ expect: 'weather' }), 'step 1 (expect: weather), field "expect": expected one of pods, node, deployment, connection, rejected, file, service, write, written, read, leaders, got "weather"'],
    ['pods without a count', withSteps({ expect: 'pods', phase: 'Running' }), 'step 1 (expect: pods): say how many pods: count, min or max'],
    ['pods with count and min', withSteps({ expect: 'pods', count: 2, min: 1 }), 'step 1 (expect: pods), field "count": give either count or min/max, not both'],
    ['pods with min above max', withSteps({ expect: 'pods', min: 3, max: 2 }), 'step 1 (expect: pods), field "min": min 3 is above max 2'],
    ['a misspelt phase', withSteps({ expect: 'pods', count: 1, phase: 'running' }), 'step 1 (expect: pods), field "phase": expected one of Pending, Running, Succeeded, Failed, Unknown, Terminating, got "running"'],
    ['a bad selector', withSteps({ expect: 'pods', count: 1, selector: 'app in (web' }), 'step 1 (expect: pods), field "selector": '],
    ['scheduled in the edge view', withSteps({ expect: 'pods', view: 'edge', count: 1, scheduled: false }), 'step 1 (expect: pods), field "scheduled": the edge\'s view holds only pods scheduled to it'],
    ['a field of another expectation', withSteps({ expect: 'node', node: 'edge-1', ready: 'True', count: 1 }), 'step 1 (expect: node), field "count": unknown field (allowed here: expect, within, for, measure, bytes, node, ready)'],
    ['bytes without measure', withSteps({ expect: 'node', node: 'edge-1', ready: 'True', bytes: 'edge-1' }), 'step 1 (expect: node), field "bytes": bytes goes with measure: name what is measured'],
    ['bytes of a node not in the scenario', withSteps({ expect: 'node', node: 'edge-1', ready: 'True', measure: 'm', bytes: 'edge-9' }), 'step 1 (expect: node), field "bytes": "edge-9" is not a node of this scenario (edge-1, edge-2, edge-3)'],
    ['ready as a boolean', withSteps({ expect: 'node', node: 'edge-1', ready: true }), 'step 1 (expect: node), field "ready": expected one of True, False, Unknown, got true'],
    ['connection without connected', withSteps({ expect: 'connection', node: 'edge-2' }), 'step 1 (expect: connection), field "connected": required'],
    ['rejected without an object', withSteps({ expect: 'rejected', status: 503 }), 'step 1 (expect: rejected), field "create": required: the object whose creation is to fail'],
    ['file without a selector', withSteps({ expect: 'file', node: 'edge-1', path: '/etc/cfg/a', contains: 'x' }), 'step 1 (expect: file), field "selector": required: the labels of the pod'],
    ['file with a relative path', withSteps({ expect: 'file', node: 'edge-1', selector: 'app=a', path: 'etc/cfg/a', contains: 'x' }), 'step 1 (expect: file), field "path": expected an absolute path in the container, got "etc/cfg/a"'],
    ['file without contains', withSteps({ expect: 'file', node: 'edge-1', selector: 'app=a', path: '/etc/cfg/a' }), 'step 1 (expect: file), field "contains": required'],
    ['rejected with a status out of range', withSteps({ expect: 'rejected', create: pod, status: 200 }), 'step 1 (expect: rejected), field "status": expected a whole number from 400 to 599, got 200'],
  ])('%s', (_, doc, message) => {
    const problems = problemsOf(doc);
    expect(problems.length, JSON.stringify(problems)).toBeGreaterThan(0);
    expect(problems.some((p) => p.startsWith(message)), JSON.stringify(problems)).toBe(true);
  });

  it('lists every problem of a file at once, each with its step', () => {
    expect(problemsOf(withSteps({ cut: 'edge-9' }, { wait: 'soon' }, { expect: 'pods' }))).toEqual([
      'step 1 (cut), field "cut": "edge-9" is not a node of this scenario (edge-1, edge-2, edge-3)',
      'step 2 (wait), field "wait": expected a duration such as 30s, 5m or 1m30s, got "soon"',
      'step 3 (expect: pods): say how many pods: count, min or max',
    ]);
  });

  it('names the file and the YAML problem for text that is not YAML', () => {
    expect(() => parseScenarioText('name: [unclosed', 'broken.yaml')).toThrow(/^broken\.yaml: not valid YAML: /);
    expect(() => parseScenarioText('name: a\nname: b\n', 'twice.yaml')).toThrow(/^twice\.yaml: not valid YAML: .*[Uu]nique/);
  });
});

describe('scenario files on disk', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-scenario-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the objects of a manifest path, and names the step of one that cannot be read', async () => {
    const good = join(dir, 'good.yaml');
    await writeFile(good, 'name: good\ndescription: d\nsteps:\n  - apply: examples/deployment.yaml\n');
    const { scenario, source } = await loadScenarioFile(good);
    expect(source).toBe(good);
    expect(scenario.steps[0]).toMatchObject({ kind: 'apply', path: 'examples/deployment.yaml', objects: [{ kind: 'Deployment', metadata: { name: 'web' } }] });

    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'name: bad\ndescription: d\nsteps:\n  - wait: 1s\n  - apply: examples/nothing.yaml\n');
    await expect(loadScenarioFile(bad)).rejects.toThrow(`${bad}: step 2 (apply), field "apply": cannot read examples/nothing.yaml: ENOENT`);
  });

  it('resolves a file path first, then a built-in name, and names the built-ins for an unknown one', async () => {
    expect((await resolveScenario('scheduler-down')).source).toBe('scenarios/scheduler-down.yaml');
    const err = await resolveScenario('dns-down').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownScenarioError);
    expect((err as Error).message).toMatch(/^no scenario named "dns-down" and no such file \(built-in: .*scheduler-down.*\)$/);
  });

  it('has its valid built-ins, each named as its file, describing what it shows and with its time scale', async () => {
    const all = await builtinScenarios();
    expect(all.map((s) => s.scenario.name).sort()).toEqual(
      ['cloud-failover', 'cni-down', 'config-changed-offline', 'controller-manager-down', 'edge-restarted-offline', 'etcd-quorum', 'flapping-wifi', 'kube-proxy-down', 'kubelet-cut-off', 'nodes-rebooted', 'satellite-link', 'saturated-uplink', 'scheduler-down', 'store-down'],
    );
    for (const { scenario, source } of all) {
      expect(basename(source)).toBe(`${scenario.name}.yaml`);
      // In its own words: nothing it cites is outside the project.
      expect(scenario.description.length).toBeGreaterThan(100);
      expect(scenario.description).not.toMatch(/\bseeds?\b/i);
      expect(scenario.timeScale).toBeGreaterThan(1);
      expect(scenario.steps.some((s) => s.kind === 'expect')).toBe(true);
    }
  });

  it('built-ins are documented in docs/scenarios.md, which names only folders and files the project has', async () => {
    const doc = await readFile(join(REPO, 'docs', 'scenarios.md'), 'utf8');
    for (const { scenario } of await builtinScenarios()) expect(doc).toContain(`| \`${scenario.name}\` |`);
    // `seeds/`, `sim/scenario/`, `examples/deployment.yaml`: a path in backquotes, relative to the repository
    const paths = [...doc.matchAll(/`([a-z][\w.-]*\/[\w./-]*)`/g)].map((m) => m[1]!).filter((p) => p.endsWith('/') || /\.(ya?ml|ts|md)$/.test(p));
    expect(paths).toContain('sim/scenario/');
    const missing: string[] = [];
    for (const path of paths) if (!(await stat(join(REPO, path)).catch(() => undefined))) missing.push(path);
    expect(missing).toEqual([]);
  });
});
