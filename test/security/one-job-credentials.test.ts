import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { createApiServer, type ApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import { createDashboard, LOGIN_TOKENS_PATH, type Dashboard } from '../../cloud/dashboard/index.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import { startControlApi, type ControlApi } from '../../sim/control-api.js';
import { writeDemoFile } from '../../sim/demo-file.js';
import { LinkClient } from '../../sim/link-client.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';

const ADMIN = 'one-job-admin-token';
const CONTROL_TOKEN = 'control-token-of-this-demo';

/**
 * Each credential does one job. A dashboard session drives the dashboard as its admin, but
 * mints no login tokens and takes no backup (a stolen session cannot outlive itself or carry
 * off every Secret). The demo's control API on 127.0.0.1, which any local user reaches, wants
 * its own token, kept in the owner-only demo.json (test/e2e/demo.test.ts: and the demo's edges
 * get their token by environment, not on a command line every user's `ps` shows).
 */
describe('credentials that do one job', () => {
  let dir: string;
  let api: ApiServer;
  let dashboard: Dashboard;
  let control: ControlApi;
  let link: LinkProxy;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-one-job-'));
    const clock = new FakeClock();
    dashboard = createDashboard({ dataDir: dir, uiDir: dir, timing: defaultTiming, clock, logger: silentLogger });
    api = createApiServer({ store: new MemoryStore(), clock, logger: silentLogger, dashboard: dashboard.api, tokens: [{ token: ADMIN, user: 'kedge-admin', role: 'admin' }] });
    await ensureSystemNamespaces(api.loopback(ADMIN));
    link = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: 9 }, clock, logger: silentLogger });
    control = await startControlApi({ links: new Map([['edge-1', link]]), logger: silentLogger, token: CONTROL_TOKEN });
    await writeDemoFile(dir, { pid: process.pid, controlUrl: control.url, controlToken: CONTROL_TOKEN, apiUrl: 'http://127.0.0.1:1', brokerUrl: 'mqtt://127.0.0.1:1', nodes: [] });
  });
  afterAll(async () => {
    await control.close();
    await link.close();
    await rm(dir, { recursive: true, force: true });
  });

  const send = async (method: string, path: string, token: string): Promise<{ status: number; message?: string }> => {
    const req: ApiRequest = { method, path, query: new URLSearchParams(), headers: { accept: 'application/json', authorization: `Bearer ${token}` } };
    const res = await api.handle(req);
    return { status: res.status, message: res.type === 'json' ? (res.body as { message?: string }).message : undefined };
  };
  const mintLogin = async (): Promise<string> => {
    const minted = await api.handle({ method: 'POST', path: LOGIN_TOKENS_PATH, query: new URLSearchParams(), headers: { authorization: `Bearer ${ADMIN}` } });
    if (minted.type !== 'json') throw new Error(`no login token: ${minted.type}`);
    return (minted.body as { token: string }).token;
  };
  const session = async (): Promise<string> => dashboard.logins.redeem(await mintLogin())!;

  it('a dashboard session acts as its admin, but mints no login tokens and takes no backup', async () => {
    const id = await session();
    expect((await send('GET', '/api/v1/namespaces', id)).status).toBe(200);
    expect((await send('GET', '/kedge/v1/demo/links', id)).status).toBe(200);
    expect(await send('POST', LOGIN_TOKENS_PATH, id)).toEqual({ status: 403, message: `forbidden: User "kedge-admin" cannot use path "${LOGIN_TOKENS_PATH}" with a dashboard session: an admin token only` });
    expect((await send('GET', '/kedge/v1/backup', id)).status).toBe(403);
    expect((await send('GET', '/kedge/v1/backup', ADMIN)).status).toBe(200);
  });

  it("a login token is no API token, and a session is no login token", async () => {
    const login = await mintLogin();
    expect((await send('GET', '/api/v1/namespaces', login)).status).toBe(401);
    const id = dashboard.logins.redeem(login)!;
    expect(dashboard.logins.redeem(id)).toBeUndefined();
  });

  it("the demo's control API refuses requests without its token; kedge link and the dashboard send it from demo.json", async () => {
    const plain = await fetch(`${control.url}/links`);
    expect([plain.status, ((await plain.json()) as { error: string }).error]).toEqual([401, 'Unauthorized']);
    const wrong = await fetch(`${control.url}/links/edge-1/cut`, { method: 'POST', headers: { authorization: 'Bearer guess' } });
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
    expect(link.state().state).toBe('up');
    expect((await stat(join(dir, 'demo.json'))).mode & 0o777).toBe(0o600);
    const client = await LinkClient.connect(dir, realClock);
    expect((await client.list()).map((l) => l.name)).toEqual(['edge-1']);
    expect((await send('GET', '/kedge/v1/demo/links/edge-1', ADMIN)).status).toBe(200);
  });
});
