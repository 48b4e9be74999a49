import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { VIEWER_TOKEN, apiFixture, pod, takeEvents, type ApiFixture } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';

interface Status {
  kind: string;
  status: string;
  code: number;
  reason?: string;
  message?: string;
}

function eviction(name: string, deleteOptions?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Eviction', apiVersion: 'policy/v1', metadata: { name, namespace: 'default' }, ...(deleteOptions ? { deleteOptions } : {}) };
}

async function createPod(f: ApiFixture, name: string, extra: Record<string, unknown> = {}): Promise<Pod> {
  const res = await f.json<Pod>('POST', pods, { body: pod(name, extra) });
  expect(res.status).toBe(201);
  return res.body;
}

describe('pods/eviction (policy/v1)', () => {
  it('deletes the pod and answers 201 with a Success Status, as kube does', async () => {
    const f = await apiFixture();
    const created = await createPod(f, 'web');
    const watch = await f.send('GET', pods, { query: { watch: 'true', resourceVersion: created.metadata.resourceVersion! } });
    const res = await f.json<Status>('POST', `${pods}/web/eviction`, { body: eviction('web', {}) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await f.json('GET', `${pods}/web`)).status).toBe(404);
    // Like kube 1.32: the pod is first marked as a disruption target, then deleted.
    const [marked, deleted] = await takeEvents(watch, 2);
    expect(marked!.type).toBe('MODIFIED');
    expect((marked!.object as Pod).status?.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }));
    expect(deleted!.type).toBe('DELETED');
  });

  it('honours the preconditions of its deleteOptions: a stale uid or resourceVersion is 409 and the pod stays', async () => {
    const f = await apiFixture();
    const created = await createPod(f, 'web');
    const uid = await f.json<Status>('POST', `${pods}/web/eviction`, { body: eviction('web', { preconditions: { uid: 'someone-else' } }) });
    expect(uid.status).toBe(409);
    expect(uid.body).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on Pod "web": the UID in the precondition (someone-else) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
    });
    const rv = await f.json<Status>('POST', `${pods}/web/eviction`, { body: eviction('web', { preconditions: { resourceVersion: '1' } }) });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toContain('the ResourceVersion in the precondition (1) does not match');
    const still = await f.json<Pod>('GET', `${pods}/web`);
    expect(still.status).toBe(200);
    expect(still.body.status?.conditions ?? []).not.toContainEqual(expect.objectContaining({ type: 'DisruptionTarget' }));

    const exact = { preconditions: { uid: created.metadata.uid, resourceVersion: still.body.metadata.resourceVersion } };
    expect((await f.json('POST', `${pods}/web/eviction`, { body: eviction('web', exact) })).status).toBe(201);
    expect((await f.json('GET', `${pods}/web`)).status).toBe(404);
  });

  it('passes the rest of deleteOptions on: Orphan on a pod with a finalizer leaves it marked as deleting', async () => {
    const f = await apiFixture();
    await createPod(f, 'held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const res = await f.json('POST', `${pods}/held/eviction`, { body: eviction('held', { propagationPolicy: 'Orphan' }) });
    expect(res.status).toBe(201);
    const held = await f.json<Pod>('GET', `${pods}/held`);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    expect(held.body.metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
    const bad = await f.json<Status>('POST', `${pods}/held/eviction`, { body: eviction('held', { propagationPolicy: 'Sideways' }) });
    expect(bad.status).toBe(422);
  });

  it('answers 400 for a name that is not the URL\'s, 404 for a missing pod, 403 for a viewer', async () => {
    const f = await apiFixture();
    await createPod(f, 'web');
    const other = await f.json<Status>('POST', `${pods}/web/eviction`, { body: eviction('db') });
    expect(other).toMatchObject({ status: 400, body: { reason: 'BadRequest', message: 'name in URL does not match name in Eviction object' } });
    const wrongKind = await f.json<Status>('POST', `${pods}/web/eviction`, { body: { ...eviction('web'), kind: 'Pod' } });
    expect(wrongKind.status).toBe(400);
    const gone = await f.json<Status>('POST', `${pods}/nope/eviction`, { body: eviction('nope') });
    expect(gone).toMatchObject({ status: 404, body: { message: 'pods "nope" not found' } });
    expect((await f.json('POST', `${pods}/web/eviction`, { body: eviction('web'), token: VIEWER_TOKEN })).status).toBe(403);
    expect((await f.json('GET', `${pods}/web/eviction`)).status).toBe(405);
    expect((await f.json('GET', `${pods}/web`)).status).toBe(200);
  });
});
