import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openApiV3, type OpenApiIndex } from '../../cloud/apiserver/discovery/openapi.js';
import { ResourceRegistry, type ResourceDef } from '../../cloud/apiserver/kinds/registry.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { refsOf } from '../support/openapi-docs.js';
import { apiFixture, VIEWER_TOKEN } from '../support/api-fixture.js';

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, unknown> };
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string };
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Record<string, unknown>> } };

const gvPath = (d: Pick<ResourceDef, 'group' | 'version'>): string => (d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`);
const sameKind = (a: { group: string; version: string; kind: string }, d: ResourceDef): boolean => a.group === d.group && a.version === d.version && a.kind === d.kind;

/** Every PATCH operation of `doc` for the kind, as kubectl's field-validation check looks for them. */
function patchOperations(doc: Doc, def: ResourceDef): Operation[] {
  return Object.values(doc.paths).flatMap((item) => (item.patch && item.patch['x-kubernetes-group-version-kind'] && sameKind(item.patch['x-kubernetes-group-version-kind'], def) ? [item.patch] : []));
}

describe('OpenAPI v3', () => {
  it('indexes one document per group-version of the resource table, behind authentication', async () => {
    const f = await apiFixture();
    const index = await f.json<OpenApiIndex>('GET', '/openapi/v3');
    expect(index.status).toBe(200);
    const expected = [...new Set(f.api.registry.defs.map(gvPath))].sort();
    expect(Object.keys(index.body.paths).sort()).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1']));
    for (const [key, entry] of Object.entries(index.body.paths)) {
      expect(entry.serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${key}\\?hash=[0-9A-F]{64}$`));
    }
    expect((await f.json('GET', '/openapi/v3', { token: null })).status).toBe(401);
    expect((await f.json('GET', '/openapi/v3', { token: VIEWER_TOKEN })).status).toBe(200);
    expect((await f.json('GET', '/openapi/v3/', { token: VIEWER_TOKEN })).status).toBe(200);
  });

  it('serves each document at its URL, its hash the digest of the bytes served; unknown group-versions are 404', async () => {
    const f = await apiFixture();
    const index = await f.json<OpenApiIndex>('GET', '/openapi/v3');
    for (const { serverRelativeURL } of Object.values(index.body.paths)) {
      const [path, query] = serverRelativeURL.split('?');
      const doc = await f.json<Doc>('GET', path!, { query: Object.fromEntries(new URLSearchParams(query)) });
      expect([path, doc.status]).toEqual([path, 200]);
      expect(doc.body).toMatchObject({ openapi: '3.0.0', info: { title: 'Kubernetes' } });
      const served = await f.send('GET', path!);
      const hash = served.type === 'bytes' ? createHash('sha256').update(served.body).digest('hex').toUpperCase() : served.type;
      expect([path, hash]).toEqual([path, new URLSearchParams(query).get('hash')]);
    }
    for (const path of ['/openapi/v3/apis/widgets.example.com/v1', '/openapi/v3/api', '/openapi/v3x']) {
      expect([path, (await f.json('GET', path)).status]).toEqual([path, 404]);
    }
    expect((await f.json('POST', '/openapi/v3', { body: {} })).status).toBe(405);
  });

  it('gives every kind a PATCH operation with fieldValidation, a schema carrying its GVK, and no dangling $ref', () => {
    const registry = new ResourceRegistry(clusterResources);
    const api = openApiV3(registry);
    for (const def of registry.defs.filter((d) => d.source === undefined)) {
      const doc = api.serve(`/openapi/v3/${gvPath(def)}`) as Doc;
      const patches = patchOperations(doc, def);
      expect([def.kind, patches.length > 0]).toEqual([def.kind, true]);
      for (const op of patches) {
        expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'fieldValidation', in: 'query' })]));
        expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'fieldManager', in: 'query' })]));
        // Listing strategic merge patch would make kubectl build apply patches from these open schemas.
        expect(Object.keys(op.requestBody!.content)).not.toContain('application/strategic-merge-patch+json');
      }
      for (const method of ['post', 'put'] as const) {
        const ops = Object.values(doc.paths).flatMap((item) => (item[method] ? [item[method]] : []));
        for (const op of ops) expect(op.parameters!.map((p) => p.name)).toEqual(['fieldManager', 'fieldValidation', 'dryRun']);
      }
      const schemas = Object.values(doc.components.schemas).filter((s) =>
        (s['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[] | undefined)?.some((g) => sameKind(g, def)));
      expect([def.kind, schemas.length]).toEqual([def.kind, 1]);
      expect(schemas[0]).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      for (const r of refsOf(doc.paths)) expect(doc.components.schemas[r.replace('#/components/schemas/', '')]).toBeDefined();
    }
  });

  it('lays paths out as kube-apiserver does, with the subresource kinds', () => {
    const api = openApiV3(new ResourceRegistry(clusterResources));
    const core = api.serve('/openapi/v3/api/v1') as Doc;
    expect(Object.keys(core.paths)).toEqual(expect.arrayContaining([
      '/api/v1/namespaces/{namespace}/pods', '/api/v1/namespaces/{namespace}/pods/{name}', '/api/v1/pods',
      '/api/v1/namespaces/{namespace}/pods/{name}/status', '/api/v1/namespaces/{namespace}/pods/{name}/binding',
      '/api/v1/nodes', '/api/v1/nodes/{name}', '/api/v1/namespaces/{name}',
    ]));
    expect(Object.keys(core.paths)).not.toContain('/api/v1/nodes/{name}/binding');
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding']!.post!['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Binding' });
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}']).toMatchObject({
      patch: { operationId: 'patchCoreV1NamespacedPod' }, get: { operationId: 'readCoreV1NamespacedPod' }, parameters: [{ name: 'name', in: 'path' }, { name: 'namespace', in: 'path' }],
    });
    expect(core.paths['/api/v1/pods']!.get).toMatchObject({ operationId: 'listCoreV1PodForAllNamespaces' });
    const apps = api.serve('/openapi/v3/apis/apps/v1') as Doc;
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!;
    expect(Object.keys(scale)).toEqual(['get', 'patch', 'put', 'parameters']);
    expect(scale.patch!['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']).toBeDefined();
    expect(apps.components.schemas['io.k8s.api.apps.v1.DeploymentList']).toMatchObject({ 'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'DeploymentList' }] });
  });

  it('follows the table: a new kind gets its document, and only the changed document changes its hash', () => {
    const widget: ResourceDef = {
      group: 'example.kedge.io', version: 'v1alpha1', resource: 'widgets', singular: 'widget', kind: 'Widget', namespaced: false,
      shortNames: [], categories: [], subresources: [],
    };
    const before = openApiV3(new ResourceRegistry(clusterResources)).serve('/openapi/v3') as OpenApiIndex;
    const api = openApiV3(new ResourceRegistry([...clusterResources, widget]));
    const after = api.serve('/openapi/v3') as OpenApiIndex;
    expect(Object.keys(after.paths)).toEqual([...Object.keys(before.paths), 'apis/example.kedge.io/v1alpha1']);
    expect(after.paths['apis/apps/v1']).toEqual(before.paths['apis/apps/v1']);
    const doc = api.serve('/openapi/v3/apis/example.kedge.io/v1alpha1') as Doc;
    expect(doc.paths['/apis/example.kedge.io/v1alpha1/widgets/{name}']!.patch!['x-kubernetes-group-version-kind']).toEqual({ group: 'example.kedge.io', version: 'v1alpha1', kind: 'Widget' });
    expect(Object.keys(doc.components.schemas)).toContain('io.kedge.example.v1alpha1.Widget');
  });
});
