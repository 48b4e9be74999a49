import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { STREAMED_LIST_MIN_ITEMS } from '../../cloud/apiserver/http/list-encoding.js';

describe('HTTP transport', () => {
  let f: HttpApiFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  const call = async (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; json: Record<string, unknown> }> => {
    const res = await fetch(f!.server.url + path, { method, body, headers: { authorization: `Bearer ${f!.token}`, ...headers } });
    return { status: res.status, type: res.headers.get('content-type'), json: (await res.json()) as Record<string, unknown> };
  };

  it('answers errors as JSON Status objects', async () => {
    f = await httpApiFixture({ tls: false });
    const bad = await call('POST', '/api/v1/namespaces/default/pods', '{nope', { 'content-type': 'application/json' });
    expect(bad).toMatchObject({ status: 400, type: 'application/json', json: { kind: 'Status', reason: 'BadRequest' } });
    const big = await call('POST', '/api/v1/namespaces/default/pods', Buffer.alloc(3 * 1024 * 1024 + 10, 0x20), { 'content-type': 'application/json' });
    expect(big).toMatchObject({ status: 413, json: { reason: 'RequestEntityTooLarge' } });
    const noAuth = await fetch(f.server.url + '/api/v1/pods');
    expect(noAuth.status).toBe(401);
    const health = await fetch(f.server.url + '/readyz');
    expect(await health.text()).toBe('ok');
    const noType = await call('PUT', '/api/v1/namespaces/default', Buffer.from(JSON.stringify({ metadata: { name: 'default', labels: { a: 'b' } } })));
    expect(noType.status).toBe(200);
  });

  it('streams a watch as lines, flushes headers at once, and close() ends open watches', async () => {
    f = await httpApiFixture({ tls: false });
    const lines: string[] = [];
    let headersAt = -1;
    let ended = false;
    const req = request(`${f.server.url}/api/v1/namespaces/default/pods?watch=true`, { headers: { authorization: `Bearer ${f.token}` } }, (res) => {
      headersAt = lines.length;
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['transfer-encoding']).toBe('chunked');
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        const parts = buffer.split('\n');
        buffer = parts.pop()!;
        lines.push(...parts);
      });
      res.on('close', () => (ended = true));
    });
    req.on('error', () => (ended = true));
    req.end();
    await waitFor(() => headersAt === 0, 'watch headers before any event');
    await f.api.loopback(f.token).create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'w' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    await waitFor(() => lines.length >= 1, 'first watch line');
    const event = JSON.parse(lines[0]!) as { type: string; object: { kind: string; apiVersion: string; metadata: { name: string } } };
    expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'w' } } });
    await f.server.close();
    await waitFor(() => ended, 'watch closed by server close');
  });
  it('sends a long list chunked, encoded as it goes, as the same JSON a short one would be', async () => {
    f = await httpApiFixture({ tls: false });
    const api = f.api.loopback(f.token);
    const names = Array.from({ length: STREAMED_LIST_MIN_ITEMS + 44 }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
    for (const name of names) await api.create({ resource: 'configmaps', namespace: 'default' }, { metadata: { name }, data: { name } });
    const get = (accept: string, method = 'GET'): Promise<{ headers: Record<string, unknown>; body: string }> =>
      new Promise((resolve, reject) => {
        const req = request(`${f!.server.url}/api/v1/namespaces/default/configmaps`, { method, headers: { authorization: `Bearer ${f!.token}`, accept } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const list = await get('application/json');
    expect(list.headers['transfer-encoding']).toBe('chunked');
    expect(list.headers['content-length']).toBeUndefined();
    const parsed = JSON.parse(list.body) as { kind: string; metadata: { resourceVersion: string }; items: { data: { name: string } }[] };
    expect(parsed.kind).toBe('ConfigMapList');
    expect(parsed.items.map((cm) => cm.data.name)).toEqual(names);
    expect(list.body).toBe(JSON.stringify(parsed)); // compact, as the unstreamed answer
    const table = await get('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect(table.headers['transfer-encoding']).toBe('chunked');
    expect((JSON.parse(table.body) as { rows: unknown[] }).rows).toHaveLength(names.length);
    const head = await get('application/json', 'HEAD');
    expect(head.body).toBe('');
  });
});
