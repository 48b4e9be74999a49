import { describe, expect, it } from 'vitest';
import { createApiServer, POD_STARTUP_PATH, type ApiServerDeps } from '../../cloud/apiserver/pipeline.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

/** GET (or `method`) `path` as the holder of `token`: 'a' an admin, 'v' a viewer, 'n' node edge-1, none a stranger. */
function apiServer(path: string, extra: Pick<ApiServerDeps, 'metrics' | 'podStartups'>) {
  const api = createApiServer({
    store: new MemoryStore(),
    clock: new FakeClock(),
    logger: silentLogger,
    tokens: [
      { token: 'a', user: 'admin', role: 'admin' },
      { token: 'v', user: 'viewer', role: 'viewer' },
      { token: 'n', user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
    ...extra,
  });
  return (token: string | undefined, method = 'GET') => api.handle({ method, path, query: new URLSearchParams(), headers: token ? { authorization: `Bearer ${token}` } : {} });
}

describe('GET /metrics', () => {
  const get = apiServer('/metrics', { metrics: () => 'kedge_x_total 1\n' });

  it('serves the counters as text to admins and viewers', async () => {
    for (const token of ['a', 'v']) expect(await get(token)).toMatchObject({ status: 200, type: 'text', body: 'kedge_x_total 1\n' });
  });

  it('refuses nodes (403), strangers (401) and writes (405)', async () => {
    expect((await get('n')).status).toBe(403);
    expect((await get(undefined)).status).toBe(401);
    expect((await get('a', 'POST')).status).toBe(405);
  });
});

describe(`GET ${POD_STARTUP_PATH}`, () => {
  const startups = { 'default/web': { created: 1, running: 2 } };
  const get = apiServer(POD_STARTUP_PATH, { podStartups: () => startups });

  it('serves the trace to admins', async () => {
    expect(await get('a')).toMatchObject({ status: 200, body: startups });
  });

  it('refuses viewers and nodes (403), strangers (401) and writes (405)', async () => {
    expect((await get('v')).status).toBe(403);
    expect((await get('n')).status).toBe(403);
    expect((await get(undefined)).status).toBe(401);
    expect((await get('a', 'POST')).status).toBe(405);
  });

  it('is not found on a cloud that traces nothing', async () => {
    expect((await apiServer(POD_STARTUP_PATH, {})('a')).status).toBe(404);
  });
});
