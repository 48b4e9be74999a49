import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { apiFixture, pod } from '../support/api-fixture.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';

const pods = '/api/v1/namespaces/default/pods';
const yaml = 'application/yaml';

describe('malformed bodies are 400 BadRequest, and nothing is stored', () => {
  const cases: { label: string; method: string; path: string; body: string; contentType: string; message: RegExp }[] = [
    { label: 'YAML that does not parse', method: 'POST', path: pods, body: 'metadata:\n  name: [a\n', contentType: yaml, message: /not valid YAML/ },
    { label: 'YAML with two documents', method: 'POST', path: pods, body: 'metadata: {name: a}\n---\nmetadata: {name: b}\n', contentType: yaml, message: /not valid YAML/ },
    { label: 'a YAML alias bomb', method: 'POST', path: pods, body: aliasBomb(), contentType: yaml, message: /not valid YAML/ },
    { label: 'a YAML scalar', method: 'POST', path: pods, body: 'just words\n', contentType: yaml, message: /must be a JSON object/ },
    { label: 'a JSON list', method: 'POST', path: pods, body: '[1, 2]', contentType: 'application/json', message: /must be a JSON object/ },
    { label: 'a replace with broken YAML', method: 'PUT', path: `${pods}/a`, body: 'spec: {containers: [', contentType: yaml, message: /not valid YAML/ },
    { label: 'a merge patch with broken JSON', method: 'PATCH', path: `${pods}/a`, body: '{"metadata": {', contentType: 'application/merge-patch+json', message: /not valid JSON/ },
    { label: 'a JSON patch with broken JSON', method: 'PATCH', path: `${pods}/a`, body: '[{"op": "add"', contentType: 'application/json-patch+json', message: /not valid JSON/ },
  ];

  it.each(cases.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
    const f = await apiFixture();
    expect((await f.json('POST', pods, { body: pod('a') })).status).toBe(201);
    const revision = f.store.revision;
    const res = await f.json<{ reason: string; code: number; message: string }>(c.method, c.path, { rawBody: c.body, contentType: c.contentType });
    expect([res.status, res.body.reason, res.body.code]).toEqual([400, 'BadRequest', 400]);
    expect(res.body.message).toMatch(c.message);
    expect(f.store.revision).toBe(revision);
  });
});

describe('bodies over 3 MiB are 413 over HTTP, however they are sent', () => {
  let f: HttpApiFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  it('refuses a chunked body (no Content-Length) once it passes 3 MiB', async () => {
    f = await httpApiFixture({ tls: false });
    const url = new URL(`${f.server.url}${pods}`);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${f!.token}`, 'content-type': 'application/json' } }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      for (let i = 0; i < 13; i++) req.write(chunk);
      req.end();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
  });

  it('accepts a body of exactly 3 MiB', async () => {
    f = await httpApiFixture({ tls: false });
    const base = JSON.stringify(pod('big'));
    const padded = base.slice(0, -1) + ' '.repeat(3 * 1024 * 1024 - base.length) + '}';
    expect(Buffer.byteLength(padded)).toBe(3 * 1024 * 1024);
    const res = await fetch(`${f.server.url}${pods}`, { method: 'POST', body: padded, headers: { authorization: `Bearer ${f.token}`, 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
  });
});

/** "Billion laughs": ten levels of ten aliases; the YAML parser's alias limit must stop it. */
function aliasBomb(): string {
  const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
  return lines.join('\n') + '\n';
}
