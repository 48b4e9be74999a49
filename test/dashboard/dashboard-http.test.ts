import { request } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../cloud/apiserver/http/http-server.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createDashboard, LOGIN_TOKENS_PATH } from '../../cloud/dashboard/index.js';
import { DEMO_PROXY_TIMEOUT_MS } from '../../cloud/dashboard/demo-proxy.js';
import { LOGIN_TOKEN_TTL_MS } from '../../cloud/dashboard/logins.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { startControlApi, type ControlApi } from '../../sim/control-api.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { freePort } from '../support/free-port.js';

const ADMIN = 'dashboard-admin-token';
const VIEWER = 'dashboard-viewer-token';
const INDEX = '<!doctype html><head><title>kedge dashboard</title></head>';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: { message?: string; [k: string]: unknown };
}

/** The cloud's HTTP server with the dashboard, over a memory store, a fake clock and a fixture UI dir. */
describe('the dashboard served by the cloud', () => {
  const clock = new FakeClock();
  const store = new MemoryStore();
  let dir: string;
  let server: RunningApiServer;
  let link: LinkProxy;
  let control: ControlApi;

  const http = async (method: string, path: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), redirect: 'manual' });
    const text = await res.text();
    let json = {};
    try {
      json = JSON.parse(text) as object;
    } catch {
      // not JSON: a page
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  const mint = async (): Promise<string> => (await http('POST', LOGIN_TOKENS_PATH, { token: ADMIN })).json.token as string;
  /** Logs in with a fresh login token: the session the page was handed. */
  const login = async (): Promise<string> => {
    const res = await http('GET', `/?token=${await mint()}`);
    expect(res.status).toBe(200);
    return sessionIn(res.text)!;
  };
  const sessionIn = (html: string): string | undefined => /<meta name="kedge-session" content="([\w-]+)">/.exec(html)?.[1];
  const writeDemoFile = (controlUrl: string): Promise<void> => writeFile(join(dir, 'demo.json'), JSON.stringify({ controlUrl, nodes: [] }));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-dashboard-http-'));
    const uiDir = join(dir, 'ui');
    await mkdir(join(uiDir, 'view'), { recursive: true });
    await writeFile(join(uiDir, 'index.html'), INDEX);
    await writeFile(join(uiDir, 'view', 'app.js'), 'export {};\n');
    await writeFile(join(dir, 'secret.js'), 'not for the browser');
    const dashboard = createDashboard({ dataDir: dir, uiDir, timing: scaleTiming(defaultTiming, 10), clock, logger: silentLogger });
    const api = createApiServer({
      store, clock, logger: silentLogger, dashboard: dashboard.api,
      tokens: [{ token: ADMIN, user: 'kedge-admin', role: 'admin' }, { token: VIEWER, user: 'watcher', role: 'viewer' }],
    });
    await ensureSystemNamespaces(api.loopback(ADMIN));
    server = await startApiServer({ handler: api.handle, gate: api.gate, port: 0, pages: dashboard.pages });
    link = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: await freePort() }, clock, logger: silentLogger });
    control = await startControlApi({ links: new Map([['edge-1', link]]), logger: silentLogger });
  });
  afterAll(async () => {
    await server?.close();
    await control?.close();
    await link?.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the page without a session, which the API then refuses with 401', async () => {
    const res = await http('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.text).toBe(INDEX);
    expect((await http('GET', '/api/v1/namespaces')).status).toBe(401);
  });

  it('mints login tokens for admins only, on POST only', async () => {
    const minted = await http('POST', LOGIN_TOKENS_PATH, { token: ADMIN });
    expect(minted.status).toBe(201);
    expect(minted.json).toMatchObject({ kind: 'DashboardLoginToken', token: expect.any(String), expiresAt: new Date(clock.now() + LOGIN_TOKEN_TTL_MS).toISOString() });
    expect(minted.json.path).toBe(`/?token=${minted.json.token as string}`);
    expect((await http('POST', LOGIN_TOKENS_PATH, { token: VIEWER })).status).toBe(403);
    expect((await http('POST', LOGIN_TOKENS_PATH)).status).toBe(401);
    expect((await http('GET', LOGIN_TOKENS_PATH, { token: ADMIN })).status).toBe(405);
  });

  it('exchanges a login token once for a session handed to the page, never as a cookie', async () => {
    const token = await mint();
    const first = await http('GET', `/?token=${token}`);
    expect(first.status).toBe(200);
    expect(first.text).toMatch(/^<!doctype html><head><title>kedge dashboard<\/title><meta name="kedge-session" content="[\w-]{43}">\n<\/head>$/);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(first.headers.get('referrer-policy')).toBe('no-referrer');
    const again = await http('GET', `/?token=${token}`);
    expect(again.status).toBe(401);
    expect(again.text).toContain('This link was used already or has expired.');
  });

  it('spends a login token on GET only, never on HEAD', async () => {
    const token = await mint();
    const head = await http('HEAD', `/?token=${token}`);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(sessionIn((await http('GET', `/?token=${token}`)).text)).toBeDefined();
  });

  it('refuses a login token past its expiry', async () => {
    const token = await mint();
    await clock.advance(LOGIN_TOKEN_TTL_MS);
    expect((await http('GET', `/?token=${token}`)).status).toBe(401);
  });

  it('lets a session use the API as its admin, sent as a bearer token; a cookie is no credential', async () => {
    const session = await login();
    const namespaces = await http('GET', '/api/v1/namespaces', { token: session });
    expect(namespaces.status).toBe(200);
    expect(namespaces.json.kind).toBe('NamespaceList');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-session' }, data: {} };
    expect((await http('POST', '/api/v1/namespaces/default/configmaps', { token: session, body })).status).toBe(201);
    expect((await http('GET', '/api/v1/namespaces', { token: 'forged' })).status).toBe(401);
    expect((await http('GET', '/api/v1/namespaces', { headers: { cookie: `kedge-session=${session}` } })).status).toBe(401);
  });

  it('serves the built UI under /ui/ with revalidation, and nothing outside it', async () => {
    const asset = await http('GET', '/ui/view/app.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('no-cache');
    const etag = asset.headers.get('etag')!;
    expect((await http('GET', '/ui/view/app.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await http('GET', '/ui/missing.js')).status).toBe(404);
    expect((await http('GET', '/ui/index.html')).status).toBe(404);
    // Dot segments are resolved before routing: this is /secret.js, which the API refuses.
    expect(await rawStatus('/ui/%2e%2e/secret.js')).toBe(401);
    expect(await rawStatus('/ui/..%2fsecret.js')).toBe(404);
    expect(await rawStatus('/ui/view%2f..%2f..%2fsecret.js')).toBe(404);
  });

  it('tells the time scale and the node lifecycle timing', async () => {
    const info = await http('GET', '/kedge/v1/info', { token: VIEWER });
    expect(info.json).toEqual({ kind: 'ClusterInfo', apiVersion: 'kedge/v1', timeScale: 10, nodeMonitorGraceSeconds: 4, defaultTolerationSeconds: 30 });
  });

  it('passes /kedge/v1/demo/ to the demo named in demo.json, for admins only; 503 without a demo', async () => {
    const session = await login();
    const none = await http('GET', '/kedge/v1/demo/links', { token: ADMIN });
    expect(none.status).toBe(503);
    expect(none.json.message).toContain('no demo runs with this cloud');

    await writeDemoFile(control.url);
    expect((await http('GET', '/kedge/v1/demo/links', { token: VIEWER })).status).toBe(403);
    const links = await http('GET', '/kedge/v1/demo/links', { token: session });
    expect(links.json).toMatchObject({ items: [{ name: 'edge-1', state: 'up' }] });
    expect((await http('POST', '/kedge/v1/demo/links/edge-1/cut', { token: session })).json).toMatchObject({ name: 'edge-1', state: 'cut' });
    expect(link.state().state).toBe('cut');
    const unknown = await http('POST', '/kedge/v1/demo/links/edge-9/cut', { token: ADMIN });
    expect(unknown).toMatchObject({ status: 404, json: { kind: 'Status', reason: 'NotFound', message: 'no node "edge-9" in this demo (its nodes: edge-1)' } });

    await writeDemoFile(`http://127.0.0.1:${await freePort()}`);
    const gone = await http('GET', '/kedge/v1/demo/links', { token: ADMIN });
    expect(gone.status).toBe(503);
    expect(gone.json.message).toContain('is the demo still running?');
  });

  it('answers 504 Timeout when the demo does not answer in time', async () => {
    const sockets: Socket[] = [];
    let connected = (): void => {};
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await writeDemoFile(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
      const answer = http('GET', '/kedge/v1/demo/links', { token: ADMIN });
      await reached;
      await clock.advance(DEMO_PROXY_TIMEOUT_MS);
      expect(await answer).toMatchObject({ status: 504, json: { kind: 'Status', reason: 'Timeout', message: expect.stringContaining('did not answer within 30 s') } });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  /** The status of a GET sent with its path exactly as given (fetch would resolve the dots). */
  function rawStatus(path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      request(`${server.url}${path}`, { method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end();
    });
  }
});
