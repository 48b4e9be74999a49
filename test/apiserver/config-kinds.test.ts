import { describe, expect, it } from 'vitest';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import { apiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const configmaps = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';
const b64 = (text: string): string => Buffer.from(text).toString('base64');


const fieldsOf = (body: unknown): (string | undefined)[] => ((body as Status).details?.causes ?? []).map((c) => c.field);

function configMap(name: string, extra: Partial<ConfigMap> = {}): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra };
}

function secret(name: string, extra: Partial<Secret> = {}): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name }, ...extra };
}

describe('ConfigMaps', () => {
  it('are created, read, replaced, patched and deleted', async () => {
    const f = await apiFixture();
    const created = await f.json<ConfigMap>('POST', configmaps, { body: configMap('settings', { data: { mode: 'fast' }, binaryData: { blob: b64('\u0001\u0002') } }) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'fast' } });
    const got = await f.json<ConfigMap>('GET', `${configmaps}/settings`);
    expect(got.body.binaryData).toEqual({ blob: b64('\u0001\u0002') });
    const replaced = await f.json<ConfigMap>('PUT', `${configmaps}/settings`, { body: { ...got.body, data: { mode: 'slow' } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toEqual({ mode: 'slow' });
    const patched = await f.json<ConfigMap>('PATCH', `${configmaps}/settings`, { body: { data: { extra: '1' } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.data).toEqual({ mode: 'slow', extra: '1' });
    expect((await f.json('DELETE', `${configmaps}/settings`)).status).toBe(200);
    expect((await f.json('GET', `${configmaps}/settings`)).status).toBe(404);
  });

  it('prints NAME DATA AGE, counting data and binaryData', async () => {
    const f = await apiFixture();
    await f.json('POST', configmaps, { body: configMap('settings', { data: { a: '1', b: '2' }, binaryData: { c: b64('3') } }) });
    await f.json('POST', configmaps, { body: configMap('empty') });
    await f.clock.advance(5 * 60_000);
    const table = await f.json<Table>('GET', configmaps, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['empty', 0, '5m'], ['settings', 3, '5m']]);
  });

  it('refuses bad keys, a key in both maps and more than 1 MiB with 422', async () => {
    const f = await apiFixture();
    const badKey = await f.json<Status>('POST', configmaps, { body: configMap('a', { data: { 'no spaces': 'x', '..hidden': 'y' } }) });
    expect(badKey.status).toBe(422);
    expect(fieldsOf(badKey.body)).toEqual(['data[no spaces]', 'data[..hidden]']);
    expect(badKey.body.message).toContain("a valid config key must consist of alphanumeric characters, '-', '_' or '.'");
    const twice = await f.json<Status>('POST', configmaps, { body: configMap('b', { data: { k: 'x' }, binaryData: { k: b64('y') } }) });
    expect(twice.status).toBe(422);
    expect(twice.body.details?.causes?.[0]).toMatchObject({ field: 'data[k]', message: 'Invalid value: "k": duplicate of key present in binaryData' });
    const huge = await f.json<Status>('POST', configmaps, { body: configMap('c', { data: { big: 'x'.repeat(1024 * 1024 + 1) } }) });
    expect(huge.status).toBe(422);
    expect(huge.body.details?.causes?.[0]).toMatchObject({ reason: 'FieldValueTooLong' });
  });

  it('refuses what would not decode with 400: a number value, bad base64', async () => {
    const f = await apiFixture();
    const number = await f.json<Status>('POST', configmaps, { body: { ...configMap('a'), data: { n: 1 } } });
    expect(number.status).toBe(400);
    expect(number.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
    const binary = await f.json<Status>('POST', configmaps, { body: configMap('b', { binaryData: { x: 'not base64!' } }) });
    expect(binary.status).toBe(400);
    expect(binary.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 3');
    expect((await f.json('GET', configmaps)).body).toMatchObject({ items: [] });
  });

  it('keep their data once immutable', async () => {
    const f = await apiFixture();
    const created = await f.json<ConfigMap>('POST', configmaps, { body: configMap('frozen', { data: { a: '1' }, immutable: true }) });
    const change = await f.json<Status>('PUT', `${configmaps}/frozen`, { body: { ...created.body, data: { a: '2' } } });
    expect(change.status).toBe(422);
    expect(change.body.details?.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' }]);
    const thaw = await f.json<Status>('PUT', `${configmaps}/frozen`, { body: { ...created.body, immutable: false } });
    expect(fieldsOf(thaw.body)).toEqual(['immutable']);
    const labels = await f.json<ConfigMap>('PUT', `${configmaps}/frozen`, { body: { ...created.body, metadata: { ...created.body.metadata, labels: { ok: 'yes' } } } });
    expect(labels.status).toBe(200);
  });
});

describe('Secrets', () => {
  it('merge stringData into data (base64) and drop it; type defaults to Opaque', async () => {
    const f = await apiFixture();
    const created = await f.json<Secret>('POST', secrets, {
      body: secret('login', { data: { user: b64('old'), token: b64('t') }, stringData: { user: 'admin', password: 'hunter2' } }),
    });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('Opaque');
    expect(created.body).not.toHaveProperty('stringData');
    expect(created.body.data).toEqual({ user: b64('admin'), token: b64('t'), password: b64('hunter2') });
    const stored = await f.json<Secret>('GET', `${secrets}/login`);
    expect(stored.body).not.toHaveProperty('stringData');
    const replaced = await f.json<Secret>('PUT', `${secrets}/login`, { body: { ...stored.body, stringData: { token: 'new' } } });
    expect(replaced.body.data?.token).toBe(b64('new'));
    expect(replaced.body).not.toHaveProperty('stringData');
    const patched = await f.json<Secret>('PATCH', `${secrets}/login`, { body: { stringData: { extra: 'e' } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.data?.extra).toBe(b64('e'));
  });

  it('refuses data that is not base64 with 400, as kube decoding does', async () => {
    const f = await apiFixture();
    const res = await f.json<Status>('POST', secrets, { body: secret('bad', { data: { key: 'abc*' } }) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3' });
    const lines = await f.json<Secret>('POST', secrets, { body: secret('wrapped', { data: { key: `${b64('x'.repeat(60)).slice(0, 40)}\n${b64('x'.repeat(60)).slice(40)}` } }) });
    expect(lines.status).toBe(201);
  });

  it('checks the keys each well-known type needs, and keeps the type', async () => {
    const f = await apiFixture();
    const tls = await f.json<Status>('POST', secrets, { body: secret('cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }) });
    expect(tls.status).toBe(422);
    expect(tls.body.message).toBe('Secret "cert" is invalid: data[tls.key]: Required value');
    const auth = await f.json<Status>('POST', secrets, { body: secret('auth', { type: 'kubernetes.io/basic-auth' }) });
    expect(fieldsOf(auth.body)).toEqual(['data[username]', 'data[password]']);
    const docker = await f.json<Status>('POST', secrets, { body: secret('reg', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{not json') } }) });
    expect(fieldsOf(docker.body)).toEqual(['data[.dockerconfigjson]']);
    const ok = await f.json<Secret>('POST', secrets, { body: secret('cert', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }) });
    expect(ok.status).toBe(201);
    const retype = await f.json<Status>('PUT', `${secrets}/cert`, { body: { ...ok.body, type: 'Opaque' } });
    expect(retype.status).toBe(422);
    expect(retype.body.message).toBe('Secret "cert" is invalid: type: Invalid value: "Opaque": field is immutable');
  });

  it('prints NAME TYPE DATA AGE and selects by type', async () => {
    const f = await apiFixture();
    await f.json('POST', secrets, { body: secret('plain', { stringData: { a: '1', b: '2' } }) });
    await f.json('POST', secrets, { body: secret('cert', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }) });
    await f.clock.advance(90_000);
    const table = await f.json<Table>('GET', secrets, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Type', 'Data', 'Age']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['cert', 'kubernetes.io/tls', 2, '90s'], ['plain', 'Opaque', 2, '90s']]);
    const opaque = await f.json<{ items: Secret[] }>('GET', secrets, { query: { fieldSelector: 'type=Opaque' } });
    expect(opaque.body.items.map((s) => s.metadata.name)).toEqual(['plain']);
  });
});
