import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, guardedApi, VIEWER, type GuardedApi } from '../support/guarded-api.js';
import { rawConnect } from '../support/raw-connection.js';
import { waitFor } from '../support/wait.js';

const pods = '/api/v1/namespaces/default/pods';

/** Every refusal of the API is counted by reason at /metrics, a flood exactly. */
describe('/metrics counts the API refusals by reason', () => {
  let f: GuardedApi;
  afterEach(async () => f?.close());
  const call = (method: string, token: string | undefined, body?: string) =>
    fetch(`${f.server.url}${pods}`, { method, body, headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' } });
  const pod = JSON.stringify({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });

  // headersMs is the silent connection's limit, and every request's too: a busy machine must get their headers in within it.
  it('401, 413, 422, 429 and timeouts, each under its reason', async () => {
    f = await guardedApi({ inflight: { readOnly: 0, mutating: 0 }, timeouts: { headersMs: 1000, requestMs: 5000, keepAliveMs: 5000, idleMs: 5000 } });
    expect((await call('GET', undefined)).status).toBe(401);
    expect((await call('GET', 'wrong')).status).toBe(401);
    expect((await call('POST', ADMIN, '{"metadata": {"name": "x"}}')).status).toBe(422);
    expect((await call('POST', ADMIN, ' '.repeat(3 * 1024 * 1024 + 1))).status).toBe(413);
    expect((await call('GET', VIEWER)).status).toBe(429);
    const silent = await rawConnect(f.server.port);
    await waitFor(() => silent.closed(), 'the silent connection dropped', 15_000);
    const metrics = await (await fetch(`${f.server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    for (const [reason, count] of [['unauthorized', 2], ['invalid', 1], ['too-large', 1], ['too-many-requests', 1], ['header-timeout', 1]] as const) {
      expect(metrics).toContain(`kedge_api_refused_total{reason="${reason}"} ${count}\n`);
    }
  });

  it('counts a flood of one kind exactly', async () => {
    f = await guardedApi();
    const answers = await Promise.all(Array.from({ length: 300 }, () => call('POST', VIEWER, pod)));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([403]));
    expect(f.refused('forbidden')).toBe(300);
  });
});
