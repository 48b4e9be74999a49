import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/types.js';
import type { MetaWithManagedFields } from '../../cloud/apiserver/fields/managed-fields.js';
import { apiFixture, pod, type ApiFixture } from '../support/api-fixture.js';

/* The write rules can be left out (for bench/api-rules.ts only): validation and field ownership, each whole. */

const pods = '/api/v1/namespaces/default/pods';
type Stored = KubeObject & { metadata: MetaWithManagedFields; spec: { containers: Record<string, unknown>[] } };

const typo = (name: string): Record<string, unknown> => ({ ...pod(name), spec: { containers: [{ name: 'app', image: 'nginx:1.27', comand: ['sh'] }] } });
const strictCreate = (f: ApiFixture, body: unknown) => f.json<Stored & { message?: string }>('POST', pods, { body, query: { fieldManager: 'kubectl-create', fieldValidation: 'Strict' } });
const stored = async (f: ApiFixture, name: string): Promise<Stored> => (await f.json<Stored>('GET', `${pods}/${name}`)).body;

describe('write rules', () => {
  it('on by default: an unknown field is refused (Strict) and every write records managedFields', async () => {
    const f = await apiFixture();
    const refused = await strictCreate(f, typo('typo'));
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('strict decoding error: unknown field "spec.containers[0].comand"');
    expect((await strictCreate(f, pod('web'))).status).toBe(201);
    expect((await stored(f, 'web')).metadata.managedFields?.map((e) => e.manager)).toEqual(['kubectl-create']);
  });

  it('off: the unknown field is stored and no write records managedFields, apply included', async () => {
    const f = await apiFixture({ rules: { validation: false, fieldOwnership: false } });
    expect((await strictCreate(f, typo('typo'))).status).toBe(201);
    const created = await stored(f, 'typo');
    expect(created.spec.containers[0]!.comand).toEqual(['sh']);
    expect(created.metadata.managedFields).toBeUndefined();
    const merged = await f.json('PATCH', `${pods}/typo`, { body: { metadata: { labels: { a: '1' } } }, contentType: 'application/merge-patch+json', query: { fieldManager: 'kubectl-patch' } });
    expect(merged.status).toBe(200);
    const applied = await f.json('PATCH', `${pods}/typo`, { body: { ...pod('typo'), metadata: { name: 'typo', labels: { b: '2' } } }, contentType: 'application/apply-patch+yaml', query: { fieldManager: 'kubectl' } });
    expect(applied.status).toBe(200);
    const after = await stored(f, 'typo');
    expect(after.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(after.metadata.managedFields).toBeUndefined();
  });

  it('each rule alone: without validation managedFields are still recorded; without ownership a typo is still refused', async () => {
    const unvalidated = await apiFixture({ rules: { validation: false } });
    expect((await strictCreate(unvalidated, typo('typo'))).status).toBe(201);
    expect((await stored(unvalidated, 'typo')).metadata.managedFields).toHaveLength(1);
    const unowned = await apiFixture({ rules: { fieldOwnership: false } });
    expect((await strictCreate(unowned, typo('typo'))).status).toBe(400);
  });
});
