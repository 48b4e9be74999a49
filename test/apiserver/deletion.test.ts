import { beforeEach, describe, expect, it } from 'vitest';
import { timestamp } from '../../cloud/client/object-meta.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, pod, takeEvents, type ApiFixture } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const HOLD = 'example.com/hold';

interface Status {
  reason?: string;
  message?: string;
  details?: { kind?: string; group?: string; causes?: { field?: string; reason?: string }[] };
}

describe('DELETE with finalizers (kube-apiserver generic registry semantics)', () => {
  let f: ApiFixture;
  const create = async (name: string, finalizers?: string[]): Promise<Pod> =>
    (await f.json<Pod>('POST', pods, { body: pod(name, finalizers ? { metadata: { name, finalizers } } : {}) })).body;
  const get = (name: string) => f.json<Pod & Status>('GET', `${pods}/${name}`);

  beforeEach(async () => {
    f = await apiFixture();
  });

  it('marks an object with finalizers as being deleted instead of removing it, and a second DELETE changes nothing', async () => {
    const created = await create('held', [HOLD]);
    await f.clock.advance(5_000);
    const first = await f.json<Pod>('DELETE', `${pods}/held`);
    expect(first.status).toBe(200);
    expect(first.body.metadata).toMatchObject({ deletionTimestamp: timestamp(f.clock.now()), deletionGracePeriodSeconds: 0, finalizers: [HOLD], generation: 2 });
    const stored = await get('held');
    expect(stored.status).toBe(200);
    expect(stored.body.metadata.deletionTimestamp).toBe(first.body.metadata.deletionTimestamp);

    await f.clock.advance(5_000);
    const second = await f.json<Pod>('DELETE', `${pods}/held`);
    expect(second.status).toBe(200);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    expect(second.body.metadata.deletionTimestamp).toBe(first.body.metadata.deletionTimestamp);
    expect(created.metadata.deletionTimestamp).toBeUndefined();
  });

  it('removes the object once an update takes its last finalizer away, and the watch sees DELETED', async () => {
    await create('held', [HOLD, 'example.com/other']);
    const marked = await f.json<Pod>('DELETE', `${pods}/held`);
    const watch = await f.send('GET', pods, { query: { watch: 'true', resourceVersion: marked.body.metadata.resourceVersion! } });

    const patched = await f.json<Pod>('PATCH', `${pods}/held`, { body: { metadata: { finalizers: ['example.com/other'] } }, contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect((await get('held')).status).toBe(200);

    const current = (await get('held')).body;
    const replaced = await f.json<Pod>('PUT', `${pods}/held`, { body: { ...current, metadata: { ...current.metadata, finalizers: [] } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.metadata.finalizers).toEqual([]);
    expect((await get('held')).status).toBe(404);

    const events = await takeEvents(watch, 2);
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
  });

  it('keeps deletionTimestamp and the grace period on updates and refuses new finalizers on a deleting object', async () => {
    await create('held', [HOLD]);
    const marked = (await f.json<Pod>('DELETE', `${pods}/held`)).body;
    const { deletionTimestamp: _t, deletionGracePeriodSeconds: _g, ...meta } = marked.metadata;
    const labelled = await f.json<Pod>('PUT', `${pods}/held`, { body: { ...marked, metadata: { ...meta, labels: { a: 'b' } } } });
    expect(labelled.status).toBe(200);
    expect(labelled.body.metadata).toMatchObject({ deletionTimestamp: marked.metadata.deletionTimestamp, deletionGracePeriodSeconds: 0, labels: { a: 'b' } });

    const added = await f.json<Status>('PATCH', `${pods}/held`, { body: { metadata: { finalizers: [HOLD, 'example.com/late'] } }, contentType: 'application/merge-patch+json' });
    expect(added.status).toBe(422);
    expect(added.body.message).toContain('no new finalizers can be added if the object is being deleted');
    expect(added.body.details?.causes?.[0]).toMatchObject({ field: 'metadata.finalizers', reason: 'FieldValueForbidden' });
  });

  it('deletes a pod without finalizers at once', async () => {
    await create('plain');
    const res = await f.json<Pod>('DELETE', `${pods}/plain`);
    expect(res.status).toBe(200);
    expect((await get('plain')).status).toBe(404);
  });
});

describe('DeleteOptions: propagationPolicy from the body or the query', () => {
  let f: ApiFixture;
  const create = (name: string, finalizers?: string[]) => f.json<Pod>('POST', pods, { body: pod(name, finalizers ? { metadata: { name, finalizers } } : {}) });
  const finalizersOf = async (name: string) => (await f.json<Pod>('GET', `${pods}/${name}`)).body.metadata.finalizers;
  const options = (extra: Record<string, unknown>) => ({ kind: 'DeleteOptions', apiVersion: 'v1', ...extra });

  beforeEach(async () => {
    f = await apiFixture();
  });

  it.each([
    ['Orphan', ['orphan']],
    ['Foreground', ['foregroundDeletion']],
  ])('%s in the body (as kubectl sends it) adds its finalizer and keeps the object', async (policy, finalizers) => {
    await create('p');
    const res = await f.json<Pod>('DELETE', `${pods}/p`, { body: options({ propagationPolicy: policy }) });
    expect(res.status).toBe(200);
    expect(res.body.metadata.deletionTimestamp).toBe(timestamp(f.clock.now()));
    expect(await finalizersOf('p')).toEqual(finalizers);
  });

  it('Background (the default) removes the object now', async () => {
    await create('p');
    expect((await f.json('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 'Background' }) })).status).toBe(200);
    expect((await f.json('GET', `${pods}/p`)).status).toBe(404);
  });

  it('reads the query when there is no body, and the body when there is one', async () => {
    await create('q');
    await f.json('DELETE', `${pods}/q`, { query: { propagationPolicy: 'Orphan' } });
    expect(await finalizersOf('q')).toEqual(['orphan']);

    await create('b');
    await f.json('DELETE', `${pods}/b`, { query: { propagationPolicy: 'Orphan' }, body: options({ propagationPolicy: 'Background' }) });
    expect((await f.json('GET', `${pods}/b`)).status).toBe(404);

    await create('o');
    await f.json('DELETE', `${pods}/o`, { query: { orphanDependents: 'true' } });
    expect(await finalizersOf('o')).toEqual(['orphan']);
  });

  it('a later DELETE of a deleting object updates the policy finalizers only', async () => {
    await create('p', [HOLD]);
    await f.json('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 'Orphan' }) });
    expect(await finalizersOf('p')).toEqual([HOLD, 'orphan']);
    await f.json('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 'Foreground' }) });
    expect(await finalizersOf('p')).toEqual([HOLD, 'foregroundDeletion']);
    await f.json('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 'Background' }) });
    expect(await finalizersOf('p')).toEqual([HOLD]);
  });

  it('answers 202 when orphanDependents=false leaves the object in place', async () => {
    await create('p', [HOLD]);
    expect((await f.json('DELETE', `${pods}/p`, { body: options({ orphanDependents: false }) })).status).toBe(202);
  });

  it('refuses unknown policies and conflicting options with 422, and bad numbers with 400', async () => {
    await create('p');
    const bogus = await f.json<Status>('DELETE', `${pods}/p`, { query: { propagationPolicy: 'Bogus' } });
    expect(bogus.status).toBe(422);
    expect(bogus.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"');
    expect(bogus.body.details).toMatchObject({ kind: 'DeleteOptions', group: 'meta.k8s.io' });

    const both = await f.json<Status>('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 'Orphan', orphanDependents: true }) });
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('orphanDependents and deletionPropagation cannot be both set');

    expect((await f.json('DELETE', `${pods}/p`, { query: { gracePeriodSeconds: 'soon' } })).status).toBe(400);
    expect((await f.json('DELETE', `${pods}/p`, { body: options({ propagationPolicy: 7 }) })).status).toBe(400);
    expect((await f.json('GET', `${pods}/p`)).status).toBe(200);
  });

  it('deletecollection applies the same rules to each object', async () => {
    await f.json('POST', pods, { body: pod('kept', { metadata: { name: 'kept', labels: { app: 'x' }, finalizers: [HOLD] } }) });
    await f.json('POST', pods, { body: pod('gone', { metadata: { name: 'gone', labels: { app: 'x' } } }) });
    await f.json('POST', pods, { body: pod('other', { metadata: { name: 'other', labels: { app: 'y' } } }) });
    const res = await f.json<{ items: Pod[] }>('DELETE', pods, { query: { labelSelector: 'app=x' } });
    expect(res.status).toBe(200);
    expect(res.body.items.map((p) => p.metadata.name).sort()).toEqual(['gone', 'kept']);
    expect(await finalizersOf('kept')).toEqual([HOLD]);
    expect((await f.json<Pod>('GET', `${pods}/kept`)).body.metadata.deletionTimestamp).toBe(timestamp(f.clock.now()));
    expect((await f.json('GET', `${pods}/gone`)).status).toBe(404);
    expect((await f.json('GET', `${pods}/other`)).status).toBe(200);

    await f.json('DELETE', pods, { query: { labelSelector: 'app=y', propagationPolicy: 'Orphan' } });
    expect(await finalizersOf('other')).toEqual(['orphan']);
  });
});
