import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/types.js';
import type { ManagedFieldsEntry } from '../../cloud/apiserver/fields/managed-fields.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';

const deployments = '/apis/apps/v1/namespaces/default/deployments';
const configmaps = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

type Owned = KubeObject & { metadata: { managedFields?: ManagedFieldsEntry[] }; spec?: Record<string, unknown>; data?: Record<string, string> };

function deployment(replicas: number | undefined, extra: Record<string, string> = {}): Record<string, unknown> {
  const container = { name: 'web', image: 'kedge.io/hello:1.0', ports: [{ containerPort: 80 }], env: Object.entries(extra).map(([name, value]) => ({ name, value })) };
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
    spec: { ...(replicas === undefined ? {} : { replicas }), selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { runtimeClassName: 'sim', containers: [container] } } },
  };
}

function apply(f: ApiFixture, path: string, body: unknown, manager: string, force = false): Promise<{ status: number; body: Owned & { message?: string; details?: unknown } }> {
  return f.json('PATCH', path, { body, contentType: APPLY, query: { fieldManager: manager, ...(force ? { force: 'true' } : {}) } });
}

const entry = (obj: Owned, manager: string): ManagedFieldsEntry | undefined => obj.metadata.managedFields?.find((e) => e.manager === manager);

describe('field ownership (metadata.managedFields)', () => {
  it('a create records an Update by the request\'s fieldManager in kube\'s fieldsV1 encoding', async () => {
    const f = await apiFixture();
    const created = await f.json<Owned>('POST', deployments, { body: deployment(1), query: { fieldManager: 'kubectl-create' } });
    const [only] = created.body.metadata.managedFields!;
    expect(only).toMatchObject({ manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', time: expect.any(String) });
    const fields = only!.fieldsV1 as Record<string, Record<string, unknown>>;
    expect(fields['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {} } });
    const spec = fields['f:spec'] as Record<string, Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
    expect(spec['f:selector']).toEqual({});
    expect(spec['f:template']!['f:spec']!['f:containers']!['k:{"name":"web"}']).toMatchObject({
      '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
    });
  });

  it('without fieldManager the manager is the user agent\'s product, as kube names it', async () => {
    const f = await apiFixture();
    const res = await f.api.handle({
      method: 'POST', path: configmaps, query: new URLSearchParams(),
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc' },
      body: Buffer.from(JSON.stringify({ metadata: { name: 'ua' }, data: { a: '1' } })),
    });
    expect(((res as { body: Owned }).body).metadata.managedFields?.map((e) => e.manager)).toEqual(['kubectl']);
  });

  it('apply, scale, apply again: a conflict naming the scale manager; force takes the field over', async () => {
    const f = await apiFixture();
    expect((await apply(f, `${deployments}/web`, deployment(1), 'kubectl')).status).toBe(201);
    const scaled = await f.json('PATCH', `${deployments}/web/scale`, { body: { spec: { replicas: 3 } }, contentType: MERGE, query: { fieldManager: 'kubectl-scale' } });
    expect(scaled.status).toBe(200);
    const live = (await f.json<Owned>('GET', `${deployments}/web`)).body;
    expect(entry(live, 'kubectl-scale')).toMatchObject({ operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    expect(entry(live, 'kubectl')?.fieldsV1).toMatchObject({ 'f:spec': expect.not.objectContaining({ 'f:replicas': {} }) });

    const refused = await apply(f, `${deployments}/web`, deployment(1), 'kubectl');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-scale" with subresource "scale" using apps/v1: .spec.replicas',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-scale" with subresource "scale" using apps/v1', field: '.spec.replicas' }] },
    });
    // Applying the live value is no conflict: the field is then shared.
    expect((await apply(f, `${deployments}/web`, deployment(3), 'kubectl')).status).toBe(200);

    const forced = await apply(f, `${deployments}/web`, deployment(2), 'kubectl', true);
    expect(forced.status).toBe(200);
    expect(forced.body.spec?.replicas).toBe(2);
    expect(entry(forced.body, 'kubectl-scale')).toBeUndefined();
  });

  it('two conflicting managers are listed in kube\'s plural wording', async () => {
    const f = await apiFixture();
    await f.json('POST', configmaps, { body: { metadata: { name: 'c' }, data: { a: '1', b: '1' } }, query: { fieldManager: 'one' } });
    await f.json('PATCH', `${configmaps}/c`, { body: { data: { b: '2' } }, contentType: MERGE, query: { fieldManager: 'two' } });
    const refused = await apply(f, `${configmaps}/c`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'x', b: 'x' } }, 'mine');
    expect(refused.body.message).toBe('Apply failed with 2 conflicts: conflicts with "one" using v1:\n- .data.a\nconflicts with "two" using v1:\n- .data.b');
  });

  it('a field the manager stops applying is removed, unless another manager owns it too', async () => {
    const f = await apiFixture();
    await apply(f, `${deployments}/web`, deployment(1, { A: '1', B: '2' }), 'kubectl');
    await f.json('PATCH', `${deployments}/web`, { body: { metadata: { labels: { extra: 'x' } } }, contentType: MERGE, query: { fieldManager: 'other' } });
    const config = deployment(1, { A: '1' });
    (config.metadata as { labels: Record<string, string> }).labels = { app: 'web', extra: 'x' };
    await apply(f, `${deployments}/web`, config, 'kubectl');
    const withoutExtra = deployment(1, { A: '1' });
    const after = (await apply(f, `${deployments}/web`, withoutExtra, 'kubectl')).body;
    const env = (after.spec?.template as { spec: { containers: { env?: unknown[] }[] } }).spec.containers[0]!.env;
    expect(env).toEqual([{ name: 'A', value: '1' }]);
    expect(after.metadata.labels).toEqual({ app: 'web', extra: 'x' });
  });

  it('an object written without ownership gets a before-first-apply manager for what it holds', async () => {
    const f = await apiFixture();
    await f.json('POST', configmaps, { body: { metadata: { name: 'old' }, data: { a: '1' } } });
    await f.json('PATCH', `${configmaps}/old`, { body: { metadata: { managedFields: [{}] } }, contentType: MERGE });
    expect((await f.json<Owned>('GET', `${configmaps}/old`)).body.metadata.managedFields).toBeUndefined();
    const refused = await apply(f, `${configmaps}/old`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' }, data: { a: '2' } }, 'mine');
    expect(refused.body.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a');
  });

  it('status writes are owned through the status subresource, apart from the main resource', async () => {
    const f = await apiFixture();
    await f.json('POST', deployments, { body: deployment(1), query: { fieldManager: 'creator' } });
    await f.json('PATCH', `${deployments}/web/status`, { body: { status: { replicas: 1 } }, contentType: MERGE, query: { fieldManager: 'controller' } });
    const live = (await f.json<Owned>('GET', `${deployments}/web`)).body;
    expect(entry(live, 'controller')).toMatchObject({ operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:replicas': {} } } });
    expect(JSON.stringify(entry(live, 'creator')?.fieldsV1)).not.toContain('f:status');
  });

  it('kubectl\'s apply takes over fields client-side apply set and last-applied still holds; another manager conflicts', async () => {
    const f = await apiFixture();
    const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa', annotations: {} }, data: { a: '1' } });
    await f.json('POST', configmaps, { body: { metadata: { name: 'csa', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }, data: { a: '1' } }, query: { fieldManager: 'kubectl-client-side-apply' } });
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa' }, data: { a: '2' } };
    expect((await apply(f, `${configmaps}/csa`, config, 'someone')).status).toBe(409);
    const upgraded = await apply(f, `${configmaps}/csa`, config, 'kubectl');
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBe(JSON.stringify(config));
  });

  it('applying the same configuration again writes nothing', async () => {
    const f = await apiFixture();
    const first = (await apply(f, `${deployments}/web`, deployment(1), 'kubectl')).body;
    const second = (await apply(f, `${deployments}/web`, deployment(1), 'kubectl')).body;
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });
});
