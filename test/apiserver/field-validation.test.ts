import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../cloud/apiserver/request.js';
import { apiFixture, type ApiFixture } from '../support/api-fixture.js';

/** fieldValidation Strict / Warn / Ignore and typed decoding, with kube-apiserver's wording (its field_validation_test.go). */
const deployments = '/apis/apps/v1/namespaces/default/deployments';
const pods = '/api/v1/namespaces/default/pods';

/** A Deployment with a repeated key and unknown fields at several depths, as raw JSON. */
const invalidDeployment = (name: string): string => `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": { "name": "${name}", "name": "${name}", "unknownMeta": "x" },
  "spec": {
    "unknown1": "val1", "paused": true, "paused": false,
    "selector": { "matchLabels": { "app": "web" } },
    "template": { "metadata": { "labels": { "app": "web" } }, "spec": { "containers": [
      { "name": "web", "image": "nginx:1.27", "unknownNested": "x", "imagePullPolicy": "Always", "imagePullPolicy": "Never" } ] } }
  }
}`;
const problems = [
  'duplicate field "metadata.name"',
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.unknown1"',
  'duplicate field "spec.paused"',
  'unknown field "spec.template.spec.containers[0].unknownNested"',
  'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
];

const warningsOf = (res: ApiResponse): readonly string[] => (res.type === 'json' ? (res.warnings ?? []) : []);
const messageOf = (res: ApiResponse): string => (res.type === 'json' ? String((res.body as { message?: string }).message) : '');

async function stored(f: ApiFixture, path: string): Promise<Record<string, unknown>> {
  return (await f.json('GET', path)).body;
}

describe('fieldValidation', () => {
  it('Strict refuses unknown and duplicate fields with 400, in the order the decoder meets them', async () => {
    const f = await apiFixture();
    const res = await f.send('POST', deployments, { rawBody: invalidDeployment('web'), query: { fieldValidation: 'Strict' } });
    expect(res.status).toBe(400);
    expect(res.type === 'json' && (res.body as { reason: string }).reason).toBe('BadRequest');
    expect(messageOf(res)).toBe(`Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${problems.join(', ')}`);
    expect((await f.json('GET', `${deployments}/web`)).status).toBe(404);
  });

  it('Warn (also the default) warns once per problem and stores the object without the unknown fields', async () => {
    const f = await apiFixture();
    for (const [name, query] of [['warned', { fieldValidation: 'Warn' }], ['defaulted', {}]] as const) {
      const res = await f.send('POST', deployments, { rawBody: invalidDeployment(name), query });
      expect(res.status).toBe(201);
      expect(warningsOf(res)).toEqual(problems);
      const obj = (await stored(f, `${deployments}/${name}`)) as { metadata: Record<string, unknown>; spec: Record<string, unknown> & { paused: boolean; template: { spec: { containers: Record<string, unknown>[] } } } };
      expect(obj.metadata.unknownMeta).toBeUndefined();
      expect(obj.spec.unknown1).toBeUndefined();
      expect(obj.spec.paused).toBe(false);
      expect(obj.spec.template.spec.containers[0]).toMatchObject({ imagePullPolicy: 'Never' });
      expect(obj.spec.template.spec.containers[0]!.unknownNested).toBeUndefined();
    }
  });

  it('Ignore stores the object without the unknown fields and says nothing', async () => {
    const f = await apiFixture();
    const res = await f.send('POST', deployments, { rawBody: invalidDeployment('quiet'), query: { fieldValidation: 'Ignore' } });
    expect([res.status, warningsOf(res)]).toEqual([201, []]);
    expect(((await stored(f, `${deployments}/quiet`)) as { spec: Record<string, unknown> }).spec.unknown1).toBeUndefined();
  });

  it('judges an update (PUT) the same way', async () => {
    const f = await apiFixture();
    await f.send('POST', deployments, { rawBody: invalidDeployment('put'), query: { fieldValidation: 'Ignore' } });
    const res = await f.send('PUT', `${deployments}/put`, { rawBody: invalidDeployment('put'), query: { fieldValidation: 'Strict' } });
    expect(res.status).toBe(400);
    expect(messageOf(res)).toContain(`strict decoding error: ${problems.join(', ')}`);
  });

  it('judges a patch: the patch\'s duplicate fields, then the patched object\'s unknown ones in key order', async () => {
    const f = await apiFixture();
    await f.send('POST', deployments, { rawBody: invalidDeployment('patched'), query: { fieldValidation: 'Ignore' } });
    const patch = '{"spec": {"unknown1": "v", "paused": true, "paused": false, "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27", "unknownNested": "x"}]}}}}';
    const expected = ['duplicate field "spec.paused"', 'unknown field "spec.template.spec.containers[0].unknownNested"', 'unknown field "spec.unknown1"'];
    const strict = await f.send('PATCH', `${deployments}/patched`, { rawBody: patch, contentType: 'application/merge-patch+json', query: { fieldValidation: 'Strict' } });
    expect([strict.status, messageOf(strict)]).toEqual([400, `strict decoding error: ${expected.join(', ')}`]);
    const warned = await f.send('PATCH', `${deployments}/patched`, { rawBody: patch, contentType: 'application/strategic-merge-patch+json' });
    expect([warned.status, warningsOf(warned)]).toEqual([200, expected]);
  });

  it('refuses a fieldValidation it does not know', async () => {
    const f = await apiFixture();
    const res = await f.json('POST', pods, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'i' }] } }, query: { fieldValidation: 'Loose' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Warn", "Strict"');
  });
});

describe('typed validation from the schemas', () => {
  const podWith = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'typed' }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...container }], ...spec },
  });

  it.each([
    ['a string for an int32', { ports: [{ containerPort: 'eighty' }] }, 'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['a fraction for an integer', { ports: [{ containerPort: 80.5 }] }, 'json: cannot unmarshal number 80.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['an object for a string', { image: { name: 'x' } }, 'json: cannot unmarshal object into Go struct field Container.spec.containers.image of type string'],
    ['a string for a list', { command: 'sleep' }, 'json: cannot unmarshal string into Go struct field Container.spec.containers.command of type []string'],
    ['a bool for an int-or-string', { livenessProbe: { httpGet: { port: true } } }, 'json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type intstr.IntOrString'],
  ])('refuses %s with 400, naming the field', async (_what, container, message) => {
    const f = await apiFixture();
    const res = await f.json('POST', pods, { body: podWith(container) });
    expect([res.status, res.body.reason, res.body.message]).toEqual([400, 'BadRequest', `Pod in version "v1" cannot be handled as a Pod: ${message}`]);
  });

  it('takes an int-or-string as either', async () => {
    const f = await apiFixture();
    const named = await f.json('POST', pods, { body: podWith({ livenessProbe: { httpGet: { port: 'http' } } }) });
    expect(named.status).toBe(201);
    const numbered = await f.json('POST', pods, { body: { ...podWith({ livenessProbe: { httpGet: { port: 8080 } } }), metadata: { name: 'numbered' } } });
    expect(numbered.status).toBe(201);
  });

  it('refuses values outside an enum with 422 Invalid, one cause per field', async () => {
    const f = await apiFixture();
    const res = await f.json<{ message: string; details: { causes: { field: string }[] } }>('POST', pods, { body: podWith({ imagePullPolicy: 'Sometimes' }, { dnsPolicy: 'Nearby' }) });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Pod "typed" is invalid: [spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never", spec.dnsPolicy: Unsupported value: "Nearby": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"]');
    expect(res.body.details.causes.map((c) => c.field)).toEqual(['spec.containers[0].imagePullPolicy', 'spec.dnsPolicy']);
  });

  it('checks the pod templates of workloads too', async () => {
    const f = await apiFixture();
    const deployment = JSON.parse(invalidDeployment('enum').replace(/"imagePullPolicy": "Never"/, '"imagePullPolicy": "Sometimes"')) as unknown;
    const res = await f.json('POST', deployments, { body: deployment });
    expect([res.status, res.body.message]).toEqual([422, 'Deployment "enum" is invalid: spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"']);
  });
});

describe('discovery as kube serves the same kinds', () => {
  it('lists no deletecollection for namespaces, and refuses it; componentstatuses are get and list', async () => {
    const f = await apiFixture();
    const core = await f.json<{ resources: { name: string; verbs: string[] }[] }>('GET', '/api/v1');
    expect(core.body.resources.find((r) => r.name === 'namespaces')!.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect((await f.json('DELETE', '/api/v1/namespaces')).status).toBe(405);
  });
});
