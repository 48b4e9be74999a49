import { describe, expect, it } from 'vitest';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

describe('GET /metrics', () => {
  const api = createApiServer({
    store: new MemoryStore(),
    clock: new FakeClock(),
    logger: silentLogger,
    tokens: [
      { token: 'a', user: 'admin', role: 'admin' },
      { token: 'v', user: 'viewer', role: 'viewer' },
      { token: 'n', user: 'system:node:edge-1', role: 'node', groups: ['system:nodes'] },
    ],
    metrics: () => 'kedge_x_total 1\n',
  });
  const get = (token: string | undefined, method = 'GET') =>
    api.handle({ method, path: '/metrics', query: new URLSearchParams(), headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('serves the counters as text to admins and viewers', async () => {
    for (const token of ['a', 'v']) expect(await get(token)).toMatchObject({ status: 200, type: 'text', body: 'kedge_x_total 1\n' });
  });

  it('refuses nodes (403), strangers (401) and writes (405)', async () => {
    expect((await get('n')).status).toBe(403);
    expect((await get(undefined)).status).toBe(401);
    expect((await get('a', 'POST')).status).toBe(405);
  });
});
