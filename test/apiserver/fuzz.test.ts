import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../cloud/apiserver/request.js';
import { mulberry32 as prng } from '../support/random.js';
import { apiFixture, pod, VIEWER_TOKEN, type ApiFixture, type SendOptions } from '../support/api-fixture.js';

/**
 * A seeded fuzz of the apiserver: random methods, paths, queries, bodies and content types.
 * Every answer must be well formed (below 500, errors as JSON Status), and what was stored
 * before must be byte-identical after, except in the namespace the admin pass may write.
 */


type Rand = ReturnType<typeof random>;
function random(seed: number) {
  const next = prng(seed);
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number): boolean => next() < p };
}

const SCRATCH = 'scratch';
const methods = ['GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'FOO', 'get'];
const resources = ['pods', 'configmaps', 'secrets', 'services', 'endpoints', 'events', 'namespaces', 'nodes', 'leases', 'widgets', 'deployments', 'replicasets', 'runtimeclasses'];
const groups = ['/api/v1', '/apis/apps/v1', '/apis/coordination.k8s.io/v1', '/apis/node.k8s.io/v1', '/apis/policy/v1', '/apis/nope/v9', '/api/v2', '/apis', '/api'];
const names = ['a', 'web', 'cm-1', 'Bad_Name', '', '..', '%2F', 'x'.repeat(300), 'default', 'kube-system', 'ñ', 'a%00b'];
const subresources = ['status', 'binding', 'eviction', 'log', 'scale', 'finalize', 'exec', 'proxy'];
const contentTypes = [
  'application/json', 'application/yaml', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json',
  'application/apply-patch+yaml', 'application/vnd.kubernetes.protobuf', 'text/plain', 'multipart/form-data; boundary=x', '', 'application/json; charset=latin1', '*/*',
];
const queryKeys = ['watch', 'resourceVersion', 'labelSelector', 'fieldSelector', 'limit', 'continue', 'timeoutSeconds', 'dryRun', 'fieldManager', 'force', 'propagationPolicy', 'gracePeriodSeconds', 'tailLines', 'allowWatchBookmarks', 'fieldValidation', 'pretty', 'zzz'];
const queryValues = ['true', 'false', '0', '1', '-1', '99999999999999999999', 'abc', 'a=b', 'a!=b,c', 'metadata.name=a', 'spec.nodeName=', '(', 'Background', 'All', 'Strict', '', '1e3'];

/** One kind the fuzz aims at: a path and a body that go together, before mutation. */
interface Target {
  prefix: string;
  resource: string;
  template: Record<string, unknown>;
}

function randomPath(r: Rand, target: Target, namespace: string | undefined): string {
  if (r.chance(0.05)) return r.pick(['/', '/healthz', '/version', '/openapi/v3', '/openapi/v2', '/apis/apps', '/api/v1', '//api//v1', '/api/v1/namespaces/default/pods/a/b/c/d/e', '/%', '/api/v1/watch/pods']);
  const aimed = r.chance(0.7);
  const segments = [aimed ? target.prefix : r.pick(groups)];
  const ns = namespace ?? (r.chance(0.7) ? r.pick(['default', 'kube-system', 'nowhere', SCRATCH]) : undefined);
  if (r.chance(0.1)) segments.push('watch');
  if (ns !== undefined) segments.push('namespaces', ns);
  segments.push(aimed ? target.resource : r.pick(resources));
  if (r.chance(0.5)) segments.push(r.chance(0.5) ? String(target.template.metadata && (target.template.metadata as { name: string }).name) : r.pick(names));
  if (r.chance(0.2)) segments.push(r.pick(subresources));
  if (r.chance(0.03)) segments.push(r.pick(names));
  return segments.join('/');
}

function randomQuery(r: Rand): Record<string, string> {
  const query: Record<string, string> = {};
  for (let i = r.int(4); i > 0; i--) query[r.pick(queryKeys)] = r.pick(queryValues);
  return query;
}

const targets: Target[] = [
  { prefix: '/api/v1', resource: 'configmaps', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { app: 'web' } }, data: { k: 'v' } } },
  { prefix: '/api/v1', resource: 'secrets', template: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' }, stringData: { password: 'x' } } },
  { prefix: '/api/v1', resource: 'pods', template: pod('a') as unknown as Record<string, unknown> },
  { prefix: '/api/v1', resource: 'services', template: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } } },
  {
    prefix: '/apis/apps/v1', resource: 'deployments',
    template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  },
  { prefix: '/apis/coordination.k8s.io/v1', resource: 'leases', template: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'a' }, spec: { holderIdentity: 'x' } } },
];
const templates: Record<string, unknown>[] = [
  ...targets.map((t) => t.template),
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
  { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a' } },
  { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a' }, target: { kind: 'Node', name: 'edge-1' } },
];
const oddValues: unknown[] = [null, 0, -1, 1.5, 1e308, true, '', 'x', [], {}, [1, 'a', null], { $patch: 'delete' }, { $retainKeys: ['x'] }, 'ñ'.repeat(20)];

function mutate(r: Rand, value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 6) return r.chance(0.3) ? r.pick(oddValues) : value;
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string, unknown>;
  const keys = Object.keys(copy);
  for (let i = r.int(3); i > 0 && keys.length > 0; i--) {
    const key = r.pick(keys);
    const roll = r.next();
    if (roll < 0.25) delete copy[key];
    else if (roll < 0.5) copy[key] = r.pick(oddValues);
    else copy[key] = mutate(r, copy[key], depth + 1);
  }
  return copy;
}

function deepNesting(r: Rand): string {
  const depth = r.pick([100, 1_000, 20_000]);
  return r.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"metadata":'.repeat(depth) + '{}' + '}'.repeat(depth);
}

function randomBody(r: Rand, target: Target): string | undefined {
  const roll = r.next();
  const valid = JSON.stringify(r.chance(0.8) ? target.template : r.pick(templates));
  if (roll < 0.1) return undefined;
  if (roll < 0.2) return JSON.stringify({ ...JSON.parse(valid), metadata: { name: `n${r.int(20)}`, labels: { app: r.pick(['web', 'db']) } } });
  if (roll < 0.4) return JSON.stringify(mutate(r, JSON.parse(valid)));
  if (roll < 0.5) return valid.slice(0, r.int(valid.length));
  if (roll < 0.55) return deepNesting(r);
  if (roll < 0.58) return JSON.stringify({ ...JSON.parse(valid), metadata: { name: 'a', annotations: { big: 'x'.repeat(r.pick([100_000, 1_000_000, 2_500_000])) } } });
  if (roll < 0.68) return JSON.stringify([{ op: r.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'nope']), path: r.pick(['/metadata/labels/x', '/spec', '', '/a/~2', '/metadata/name']), value: r.pick(oddValues), from: r.pick(['/spec', 5]) }]);
  if (roll < 0.75) return r.pick(['metadata: {name: a}', ': : :', '- a\n- b', '&a [*a]', 'metadata:\n  name: !!binary aGk=', '{"a": 1} trailing', '\u0000\u0001', 'null', '"str"', '42']);
  if (roll < 0.8) return Buffer.from([0x0a, 0x02, 0x76, 0x31, 0xff, 0xfe, 0x00]).toString('latin1');
  return valid;
}

async function check(res: ApiResponse, label: string): Promise<void> {
  if (res.type === 'watch') {
    // Take what a watch sends at once, then hang up, as a client would.
    const sub = res.events.subscribe({ next: (e) => expect(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'], label).toContain(e.type) });
    await Promise.resolve();
    sub.unsubscribe();
    return;
  }
  expect(res.status, label).toBeGreaterThanOrEqual(200);
  expect(res.status < 500 || res.status === 503 || res.status === 504, `${label} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).toBe(true);
  if (res.status < 400) return;
  expect(res.type, label).toBe('json');
  const status = res.body as { kind?: string; code?: number; reason?: string; message?: string };
  expect([status.kind, status.code, typeof status.reason, typeof status.message], label).toEqual(['Status', res.status, 'string', 'string']);
}

/** Every stored entry outside the scratch namespace (and the allocations its Services reserve), as bytes and revisions. */
async function snapshot(f: ApiFixture): Promise<Map<string, string>> {
  const { items } = await f.store.list('');
  return new Map(items.filter((kv) => !kv.key.includes(SCRATCH) && !kv.key.startsWith('/registry/ranges/')).map((kv) => [kv.key, `${kv.modRevision} ${JSON.stringify(kv.value)}`]));
}

async function seeded(): Promise<ApiFixture> {
  const f = await apiFixture();
  const create = async (path: string, body: unknown) => expect((await f.json('POST', path, { body })).status).toBe(201);
  await create('/api/v1/namespaces', { metadata: { name: SCRATCH } });
  for (const ns of ['default', 'kube-system', SCRATCH]) {
    await create(`/api/v1/namespaces/${ns}/pods`, pod('a', { metadata: { name: 'a', labels: { app: 'web' } } }));
    for (const t of targets.filter((t) => t.resource !== 'pods')) await create(`${t.prefix}/namespaces/${ns}/${t.resource}`, t.template);
  }
  await create('/api/v1/nodes', { metadata: { name: 'edge-1' } });
  return f;
}

describe('fuzzing the apiserver with a fixed seed', () => {
  it('answers 2,000 random requests well, and changes nothing it was not allowed to', async () => {
    const f = await seeded();
    const before = await snapshot(f);
    const r = random(Number(process.env.KEDGE_FUZZ_SEED ?? 0x6b656467));
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const admin = i % 5 < 3;
      const opts: SendOptions = { query: randomQuery(r), token: admin ? undefined : r.pick([VIEWER_TOKEN, VIEWER_TOKEN, VIEWER_TOKEN, null, 'bogus']) };
      const target = r.pick(targets);
      const body = randomBody(r, target);
      if (body !== undefined) opts.rawBody = body;
      if (body !== undefined || r.chance(0.1)) opts.contentType = r.chance(0.4) ? 'application/json' : r.pick(contentTypes);
      if (r.chance(0.1)) opts.accept = r.pick(['application/json;as=Table;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', 'text/html', '*/*']);
      const method = r.pick(methods);
      const path = randomPath(r, target, admin ? SCRATCH : undefined);
      const label = `#${i} ${admin ? 'admin' : 'other'} ${method} ${path} ${JSON.stringify(opts.query)} ${opts.contentType ?? ''} ${(body ?? '').slice(0, 120)}`;
      const res = await f.send(method, path, opts);
      await check(res, label);
      seen.add(`${admin ? 'admin' : 'other'} ${res.status}`);
    }
    expect(await snapshot(f)).toEqual(before);
    // The fuzz reaches past the gate: admin writes land, and each kind of refusal is met.
    const expected = ['admin 200', 'admin 201', 'admin 400', 'admin 404', 'admin 405', 'admin 409', 'admin 415', 'admin 422', 'other 401', 'other 403', 'other 200'];
    expect([...seen].filter((s) => expected.includes(s)).sort()).toEqual(expected.sort());
  }, 60_000);
});
