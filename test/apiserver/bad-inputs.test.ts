import { readFile } from 'node:fs/promises';
import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { LogRequests } from '../../cloud/hub/log-requests.js';
import { NodeSession } from '../../cloud/hub/node-session.js';
import { ensureRuntimeClasses, ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { EnvelopeStamper, type DownMessage, type HelloMessage } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import { node, pod } from '../support/api-fixture.js';

/**
 * docs/api.md's table of bad inputs, row by row: each row is sent to an in-process apiserver
 * and must answer exactly the documented code and reason; the doc must carry each row verbatim.
 */
const ADMIN = 'admin';
const VIEWER = 'viewer';
const EDGE1 = 'edge-1';
const pods = '/api/v1/namespaces/default/pods';
const cms = '/api/v1/namespaces/default/configmaps';
const merge = 'application/merge-patch+json';
const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions';

interface Send {
  method: string;
  path: string;
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string;
  token?: string | null;
  query?: Record<string, string>;
}

interface Row {
  /** The first column of the doc's table, verbatim. */
  input: string;
  code: number;
  reason: string;
  /** Several requests: setup ones first, the last is the one judged. */
  send: (c: Cluster) => Send[] | Promise<Send[]>;
  causes?: string[];
}

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra });

const rows: Row[] = [
  { input: 'malformed JSON body', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, raw: '{"metadata": {', contentType: 'application/json' }] },
  { input: 'malformed YAML body', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, raw: 'metadata:\n  name: [a\n', contentType: 'application/yaml' }] },
  { input: 'a body that is not an object (`[1,2]`)', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, raw: '[1,2]' }] },
  { input: 'body nested more than 512 levels deep', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, raw: '{"metadata":'.repeat(600) + '{}' + '}'.repeat(600) }] },
  {
    // Deep nesting fits only a free-form field (unknown fields are dropped): a ControllerRevision's data.
    input: 'object nested more than 64 levels deep, as created or after a patch', code: 422, reason: 'Invalid', causes: [`data${'.x'.repeat(63)}`],
    send: () => [{ method: 'POST', path: revisions, body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'rev' }, revision: 1, data: JSON.parse('{"x":'.repeat(63) + '{}' + '}'.repeat(63)) as unknown } }],
  },
  {
    input: 'object larger than 1,032,192 bytes as JSON, as created or after a patch', code: 413, reason: 'RequestEntityTooLarge',
    // Within a ConfigMap's own 1 MiB of data (past which its validation answers 422), past what the sync carries.
    send: () => [{ method: 'POST', path: cms, body: cm('big', { data: { k: 'v'.repeat(1_040_000) } }) }],
  },
  { input: 'body over 3 MiB', code: 413, reason: 'RequestEntityTooLarge', send: () => [{ method: 'POST', path: cms, raw: Buffer.alloc(3 * 1024 * 1024 + 1, 0x20) }] },
  { input: 'body in an unknown format (`text/plain`)', code: 415, reason: 'UnsupportedMediaType', send: () => [{ method: 'POST', path: cms, raw: '{}', contentType: 'text/plain' }] },
  { input: 'PATCH with `Content-Type: application/json`', code: 415, reason: 'UnsupportedMediaType', send: () => [{ method: 'PATCH', path: `${cms}/cm`, body: { data: { k: 'x' } }, contentType: 'application/json' }] },
  { input: 'unknown resource (`/api/v1/widgets`)', code: 404, reason: 'NotFound', send: () => [{ method: 'GET', path: '/api/v1/widgets' }] },
  { input: 'unknown group version (`/apis/example.com/v1/things`)', code: 404, reason: 'NotFound', send: () => [{ method: 'GET', path: '/apis/example.com/v1/things' }] },
  { input: 'unknown subresource (`pods/<name>/proxy`)', code: 404, reason: 'NotFound', send: () => [{ method: 'GET', path: `${pods}/pending/proxy` }] },
  { input: '`pods/<name>/exec` without a connection upgrade', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: `${pods}/pending/exec` }] },
  { input: 'missing object', code: 404, reason: 'NotFound', send: () => [{ method: 'GET', path: `${cms}/nothing` }] },
  { input: 'POST to a named object', code: 405, reason: 'MethodNotAllowed', send: () => [{ method: 'POST', path: `${cms}/cm`, body: cm('cm') }] },
  { input: 'unknown method (`FOO`)', code: 405, reason: 'MethodNotAllowed', send: () => [{ method: 'FOO', path: `${cms}/cm` }] },
  { input: 'verb a subresource lacks (DELETE `pods/<name>/status`)', code: 405, reason: 'MethodNotAllowed', send: () => [{ method: 'DELETE', path: `${pods}/pending/status` }] },
  { input: 'DELETE on a watch path (`/api/v1/watch/...`)', code: 405, reason: 'MethodNotAllowed', send: () => [{ method: 'DELETE', path: '/api/v1/watch/namespaces/default/configmaps' }] },
  { input: 'write to a read-only path (POST `/api`)', code: 405, reason: 'MethodNotAllowed', send: () => [{ method: 'POST', path: '/api', body: {} }] },
  { input: 'no token', code: 401, reason: 'Unauthorized', send: () => [{ method: 'GET', path: pods, token: null }] },
  { input: 'unknown token', code: 401, reason: 'Unauthorized', send: () => [{ method: 'GET', path: pods, token: 'not-a-token' }] },
  { input: 'Authorization header that is not `Bearer <token>`', code: 401, reason: 'Unauthorized', send: () => [{ method: 'GET', path: pods, token: 'Basic YWRtaW46YWRtaW4=' }] },
  { input: 'viewer write', code: 403, reason: 'Forbidden', send: () => [{ method: 'POST', path: cms, body: cm('by-viewer'), token: VIEWER }] },
  { input: "node writing another node's pod status", code: 403, reason: 'Forbidden', send: () => [{ method: 'PATCH', path: `${pods}/on-edge-2/status`, body: { status: { phase: 'Running' } }, contentType: merge, token: EDGE1 }] },
  { input: 'node writing a pod (not its status)', code: 403, reason: 'Forbidden', send: () => [{ method: 'PATCH', path: `${pods}/on-edge-1`, body: { metadata: { labels: { a: 'b' } } }, contentType: merge, token: EDGE1 }] },
  { input: 'viewer (or node) reading a Secret: get, list (`-A` too), watch', code: 403, reason: 'Forbidden', send: () => [{ method: 'GET', path: '/api/v1/secrets', token: VIEWER }] },
  {
    input: 'node changing its own taints, `spec.unschedulable`, ownerReferences or a label a kubelet may not set (any verb)', code: 403, reason: 'Forbidden',
    send: () => [{ method: 'PATCH', path: '/api/v1/nodes/edge-1', body: { spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] } }, contentType: 'application/strategic-merge-patch+json', token: EDGE1 }],
  },
  {
    input: 'node registering itself with a label a kubelet may not set', code: 403, reason: 'Forbidden',
    send: () => [{ method: 'DELETE', path: '/api/v1/nodes/edge-1' }, { method: 'POST', path: '/api/v1/nodes', body: node('edge-1'), token: EDGE1 }],
  },
  { input: 'name in the body differs from the URL', code: 400, reason: 'BadRequest', send: () => [{ method: 'PUT', path: `${cms}/cm`, body: cm('other') }] },
  { input: 'namespace in the body differs from the URL', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, body: cm('x', { metadata: { name: 'x', namespace: 'kube-system' } }) }] },
  { input: 'kind in the body differs from the URL', code: 400, reason: 'BadRequest', send: () => [{ method: 'POST', path: cms, body: { ...cm('x'), kind: 'Secret' } }] },
  { input: 'invalid name (`Bad_Name`)', code: 422, reason: 'Invalid', send: () => [{ method: 'POST', path: cms, body: cm('Bad_Name') }], causes: ['metadata.name'] },
  {
    input: 'missing required field (a Pod without containers)', code: 422, reason: 'Invalid', causes: ['spec.containers'],
    send: () => [{ method: 'POST', path: pods, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: {} } }],
  },
  {
    input: 'resource quantity that does not parse (`cpu: banana`), is out of range (`1e9000000`) or negative, or a request over its limit', code: 422, reason: 'Invalid', causes: ['spec.containers[0].resources.requests[cpu]'],
    send: () => [{ method: 'POST', path: pods, body: pod('banana', { spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: 'banana' } } }] } }) }],
  },
  { input: 'create an object that exists', code: 409, reason: 'AlreadyExists', send: () => [{ method: 'POST', path: cms, body: cm('cm') }] },
  { input: 'update with a stale resourceVersion', code: 409, reason: 'Conflict', send: () => [{ method: 'PUT', path: `${cms}/cm`, body: cm('cm', { metadata: { name: 'cm', resourceVersion: '1' } }) }] },
  { input: 'JSON patch whose `test` fails', code: 422, reason: 'Invalid', send: () => [{ method: 'PATCH', path: `${cms}/cm`, body: [{ op: 'test', path: '/data/k', value: 'nope' }], contentType: 'application/json-patch+json' }] },
  {
    input: 'watch from a compacted resourceVersion (an ERROR event in a 200 stream)', code: 410, reason: 'Expired',
    send: async (c) => {
      await c.store.compact(c.store.revision);
      return [{ method: 'GET', path: cms, query: { watch: 'true', resourceVersion: '1' } }];
    },
  },
  { input: 'resourceVersion that is not a number', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: cms, query: { watch: 'true', resourceVersion: 'abc' } }] },
  { input: 'unknown field selector (`spec.nope=x`)', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: pods, query: { fieldSelector: 'spec.nope=x' } }] },
  { input: 'bad label selector (`a b c`)', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: pods, query: { labelSelector: 'a b c' } }] },
  { input: 'create in a namespace that does not exist', code: 404, reason: 'NotFound', send: () => [{ method: 'POST', path: '/api/v1/namespaces/nowhere/configmaps', body: cm('x') }] },
  {
    input: 'create in a Terminating namespace', code: 403, reason: 'Forbidden',
    send: () => [
      { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'leaving' } } },
      { method: 'DELETE', path: '/api/v1/namespaces/leaving' },
      { method: 'POST', path: '/api/v1/namespaces/leaving/configmaps', body: cm('late') },
    ],
  },
  { input: 'delete kube-system (or default, kube-public)', code: 403, reason: 'Forbidden', send: () => [{ method: 'DELETE', path: '/api/v1/namespaces/kube-system' }] },
  {
    input: 'pod naming an unknown RuntimeClass', code: 403, reason: 'Forbidden',
    send: () => [{ method: 'POST', path: pods, body: pod('odd', { spec: { runtimeClassName: 'gvisor', containers: [{ name: 'app', image: 'nginx' }] } }) }],
  },
  { input: '`pods/log` of a pod not bound to a node', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: `${pods}/pending/log` }] },
  { input: '`pods/log` with a `tailLines`, `limitBytes`, `sinceSeconds` or `sinceTime` that does not parse', code: 400, reason: 'BadRequest', send: () => [{ method: 'GET', path: `${pods}/on-edge-2/log`, query: { sinceTime: 'yesterday' } }] },
  { input: '`pods/log` with `tailLines` < 0, `limitBytes` or `sinceSeconds` < 1, or both `sinceSeconds` and `sinceTime`', code: 422, reason: 'Invalid', send: () => [{ method: 'GET', path: `${pods}/on-edge-2/log`, query: { tailLines: '-1' } }] },
  { input: '`pods/log` of a pod whose node is offline', code: 503, reason: 'ServiceUnavailable', send: () => [{ method: 'GET', path: `${pods}/on-edge-2/log` }] },
];

type Cluster = Awaited<ReturnType<typeof cluster>>;

/** Admin, viewer and edge-1 tokens; nodes edge-1 (connected) and edge-2 (offline), a pod on each, a pending pod, ConfigMap "cm". */
async function cluster() {
  const store = new MemoryStore();
  const clock = new FakeClock();
  const stamper = new EnvelopeStamper('cloud', 'c0');
  const transport = { send: (_n: string, d: Parameters<EnvelopeStamper['stamp']>[0]) => stamper.stamp(d) as DownMessage, resend: () => {} };
  const session = new NodeSession('edge-2', { clock, timing: { resendMinMs: 100, resendMaxMs: 400 }, ledger: new MemoryAckLedger(), transport });
  session.hello(new EnvelopeStamper('edge-2', 'e2').stamp({ type: 'hello', body: { bootId: 'b', holds: [] } }) as HelloMessage);
  session.offline('e2');
  const logRequests = new LogRequests(clock, transport);
  const podLogs = { logs: (p: Pod) => logRequests.ask(session, { kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name!, uid: p.metadata.uid! }, {}) };
  const api = createApiServer({
    store, clock, logger: silentLogger, resources: clusterResources, podLogs,
    tokens: [
      { token: ADMIN, user: 'admin', role: 'admin' },
      { token: VIEWER, user: 'viewer', role: 'viewer' },
      { token: EDGE1, user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
  });
  await ensureSystemNamespaces(api.loopback(ADMIN));
  await ensureRuntimeClasses(api.loopback(ADMIN));
  const send = async (s: Send) => {
    const req: ApiRequest = { method: s.method, path: s.path, query: new URLSearchParams(s.query ?? {}), headers: { accept: 'application/json' } };
    const token = s.token === undefined ? ADMIN : s.token;
    if (token !== null) req.headers.authorization = token.includes(' ') ? token : `Bearer ${token}`;
    const raw = s.raw ?? (s.body === undefined ? undefined : JSON.stringify(s.body));
    if (raw !== undefined) {
      req.body = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      if (s.contentType !== undefined || s.raw === undefined) req.headers['content-type'] = s.contentType ?? 'application/json';
    }
    return api.handle(req);
  };
  const setup: Send[] = [
    { method: 'POST', path: '/api/v1/nodes', body: node('edge-1') },
    { method: 'POST', path: '/api/v1/nodes', body: node('edge-2') },
    { method: 'POST', path: pods, body: pod('on-edge-1', { spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'nginx' }] } }) },
    { method: 'POST', path: pods, body: pod('on-edge-2', { spec: { nodeName: 'edge-2', containers: [{ name: 'app', image: 'nginx' }] } }) },
    { method: 'POST', path: pods, body: pod('pending') },
    { method: 'POST', path: cms, body: cm('cm') },
  ];
  for (const s of setup) expect((await send(s)).status).toBe(201);
  return { store, send };
}

/** The Status a response carries: the body of an error, or the ERROR event ending a watch. */
async function statusOf(res: Awaited<ReturnType<Cluster['send']>>): Promise<{ code: number; reason: string; kind: string; details?: { causes?: { field?: string }[] } }> {
  if (res.type === 'watch') return (await firstValueFrom(res.events)).object as never;
  if (res.type !== 'json') throw new Error(`expected a Status, got ${res.type} ${res.status}: ${res.body}`);
  expect((res.body as { code: number }).code).toBe(res.status);
  return res.body as never;
}

describe('bad inputs answer the Status docs/api.md documents', () => {
  it.each(rows.map((r) => [`${r.input} → ${r.code} ${r.reason}`, r] as const))('%s', async (_label, row) => {
    const c = await cluster();
    const requests = await row.send(c);
    for (const setup of requests.slice(0, -1)) expect((await c.send(setup)).status).toBeLessThan(300);
    const revision = c.store.revision;
    const status = await statusOf(await c.send(requests.at(-1)!));
    expect([status.kind, status.code, status.reason]).toEqual(['Status', row.code, row.reason]);
    if (row.causes) expect(status.details?.causes?.map((cause) => cause.field)).toEqual(expect.arrayContaining(row.causes));
    expect(c.store.revision).toBe(revision);
  });

  it('docs/api.md lists every row with its code and reason', async () => {
    const doc = await readFile(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const missing = rows.map((r) => `| ${r.input} | ${r.code} | ${r.reason} |`).filter((line) => !doc.includes(line));
    expect(missing).toEqual([]);
  });
});
