import { describe, expect, it } from 'vitest';
import { readFields } from '../../cloud/apiserver/protobuf/wire.js';
import type { OpenApiIndex } from '../../cloud/apiserver/discovery/openapi.js';
import { refsOf } from '../support/openapi-docs.js';
import { apiFixture } from '../support/api-fixture.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };
type Doc = { components: { schemas: Record<string, Schema> } };

/** The OpenAPI documents carry the real schemas of the served kinds (client-node's models, kedge's own kinds). */
describe('OpenAPI schemas', () => {
  it('gives every served kind its real schema, with every schema it refers to', async () => {
    const f = await apiFixture();
    const index = await f.json<OpenApiIndex>('GET', '/openapi/v3');
    for (const { serverRelativeURL } of Object.values(index.body.paths)) {
      const doc = (await f.json<Doc>('GET', serverRelativeURL.split('?')[0]!)).body;
      const schemas = doc.components.schemas;
      for (const ref of refsOf(doc)) expect([serverRelativeURL, ref, schemas[ref.replace('#/components/schemas/', '')] !== undefined]).toEqual([serverRelativeURL, ref, true]);
      const kinds = Object.entries(schemas).filter(([, s]) => s['x-kubernetes-group-version-kind'] && !String((s['x-kubernetes-group-version-kind'] as { kind: string }[])[0]!.kind).endsWith('List'));
      for (const [name, s] of kinds) {
        if (name.endsWith('.Status') || name.endsWith('Options')) continue; // Status, and exec/attach/portforward's options (connections, not objects)
        expect([name, s['x-kubernetes-preserve-unknown-fields'], Object.keys(s.properties ?? {}).includes('metadata')]).toEqual([name, undefined, true]);
      }
    }
  });

  it('keeps types, formats, descriptions, enums, int-or-string, quantities, maps and required fields', async () => {
    const f = await apiFixture();
    const schemas = (await f.json<Doc>('GET', '/openapi/v3/api/v1')).body.components.schemas;
    const core = (type: string): Schema => schemas[`io.k8s.api.core.v1.${type}`]!;
    expect(core('Pod')['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'Pod' }]);
    expect(core('ContainerPort').properties!.containerPort).toMatchObject({ type: 'integer', format: 'int32' });
    expect(core('ContainerPort').required).toEqual(['containerPort']);
    expect(core('Container').properties!.imagePullPolicy).toMatchObject({ type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] });
    expect(core('HTTPGetAction').properties!.port).toEqual({ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' });
    expect(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ format: 'int-or-string', 'x-kubernetes-int-or-string': true });
    expect(core('ResourceRequirements').properties!.limits).toMatchObject({ type: 'object', additionalProperties: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' } });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!.properties!.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(core('PodSpec').properties!.containers).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' } });
    expect(String(core('Probe').description)).toContain('Probe describes a health check');
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!.properties!.creationTimestamp).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('serves /openapi/v2 in JSON, and as gnostic protobuf when asked as kubectl asks', async () => {
    const f = await apiFixture();
    const json = await f.json<{ swagger: string; definitions: Record<string, Schema> }>('GET', '/openapi/v2');
    expect(json.status).toBe(200);
    expect(json.body.swagger).toBe('2.0');
    const pod = json.body.definitions['io.k8s.api.core.v1.PodSpec']!;
    expect(pod.properties!.containers).toMatchObject({ items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' } });
    expect(refsOf(json.body).every((r) => r.startsWith('#/definitions/') && json.body.definitions[r.slice(14)])).toBe(true);

    const pb = await f.send('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(pb.type === 'bytes' && pb.contentType).toBe('application/octet-stream');
    const fields = readFields(pb.type === 'bytes' ? pb.body : Buffer.alloc(0));
    expect(Buffer.from(fields.find((x) => x.field === 1)!.value as Uint8Array).toString()).toBe('2.0');
    const definitions = readFields(fields.find((x) => x.field === 9)!.value as Uint8Array);
    expect(definitions.length).toBe(Object.keys(json.body.definitions).length);
  });
});
