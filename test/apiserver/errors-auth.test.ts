import { describe, expect, it } from 'vitest';
import { ODD_TOKEN, VIEWER_TOKEN, apiFixture, pod } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';

describe('errors and access control', () => {
  it('answers malformed JSON with 400 BadRequest Status', async () => {
    const f = await apiFixture();
    const res = await f.json<Record<string, unknown>>('POST', pods, { rawBody: '{"metadata": ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it('answers unknown resources and paths with 404 NotFound', async () => {
    const f = await apiFixture();
    for (const path of ['/api/v1/namespaces/default/widgets', '/apis/widgets.example.com/v1/widgets', '/nonsense', '/openapi/v1', '/openapi/v3/apis/widgets.example.com/v1', '/api/v1/namespaces/default/pods/x/log']) {
      const res = await f.json<{ reason: string }>('GET', path);
      expect([path, res.status, res.body.reason]).toEqual([path, 404, 'NotFound']);
    }
  });

  it('answers a missing or wrong token with 401, a viewer write or unknown role with 403', async () => {
    const f = await apiFixture();
    expect((await f.json('GET', pods, { token: null })).status).toBe(401);
    expect((await f.json('GET', pods, { token: 'wrong' })).status).toBe(401);
    expect((await f.json('GET', '/api', { token: 'wrong' })).status).toBe(401);
    expect((await f.json('GET', pods, { token: VIEWER_TOKEN })).status).toBe(200);
    const write = await f.json<{ reason: string; message: string }>('POST', pods, { token: VIEWER_TOKEN, body: pod('a') });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('pods is forbidden: User "viewer" cannot create resource "pods" in API group "" in the namespace "default"');
    expect((await f.json('GET', pods, { token: ODD_TOKEN })).status).toBe(403);
    expect((await f.json('GET', '/api', { token: ODD_TOKEN })).status).toBe(403);
  });

  it('lets health checks and /version through without a token', async () => {
    const f = await apiFixture();
    for (const path of ['/healthz', '/livez', '/readyz']) {
      expect(await f.send('GET', path, { token: null })).toEqual({ type: 'text', status: 200, body: 'ok' });
    }
    const version = await f.json<Record<string, string>>('GET', '/version', { token: null, query: { timeout: '5s' } });
    expect(version.body).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4-kedge', platform: 'linux/amd64' });
  });

  it('refuses bodies over 3 MiB with 413 and bad methods with 405', async () => {
    const f = await apiFixture();
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    const res = await f.json<{ reason: string }>('POST', pods, { rawBody: big });
    expect(res.status).toBe(413);
    expect(res.body.reason).toBe('RequestEntityTooLarge');
    expect((await f.json('PUT', pods, { body: pod('a') })).status).toBe(405);
    expect((await f.json('POST', `${pods}/a`, { body: pod('a') })).status).toBe(405);
    expect((await f.json('POST', '/api/v1/nodes/x/status', { body: {} })).status).toBe(405);
  });

  it('ignores unknown query parameters and non-JSON delete bodies', async () => {
    const f = await apiFixture();
    const created = await f.json('POST', pods, { body: pod('a'), query: { fieldManager: 'kubectl-create', fieldValidation: 'Strict', timeout: '30s' } });
    expect(created.status).toBe(201);
    const list = await f.json<{ items: unknown[] }>('GET', pods, { query: { limit: '500', timeout: '32s' } });
    expect(list.body.items).toHaveLength(1);
    const del = await f.json('DELETE', `${pods}/a`, { rawBody: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a]), contentType: 'application/vnd.kubernetes.protobuf' });
    expect(del.status).toBe(200);
  });

  it('honours delete preconditions', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const res = await f.json<{ reason: string }>('DELETE', `${pods}/a`, { body: { preconditions: { uid: 'not-it' } } });
    expect(res.status).toBe(409);
  });
});
