import { beforeEach, describe, expect, it } from 'vitest';
import { timestamp } from '../../cloud/client/object-meta.js';
import type { Namespace } from '../../shared/types.js';
import { apiFixture, pod, takeEvents, type ApiFixture } from '../support/api-fixture.js';

const namespaces = '/api/v1/namespaces';

interface Status {
  reason?: string;
  message?: string;
  details?: { name?: string; kind?: string };
}

describe('namespace deletion in the apiserver: Terminating, the finalize subresource, immortal namespaces', () => {
  let f: ApiFixture;
  const createNs = (name: string, extra: Partial<Namespace['metadata']> = {}) =>
    f.json<Namespace>('POST', namespaces, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...extra } } });
  const getNs = (name: string) => f.json<Namespace>('GET', `${namespaces}/${name}`);
  const finalize = (ns: Namespace, finalizers: string[]) =>
    f.json<Namespace>('PUT', `${namespaces}/${ns.metadata.name}/finalize`, { body: { ...ns, spec: { finalizers } } });

  beforeEach(async () => {
    f = await apiFixture();
  });

  it('DELETE turns a namespace Terminating and keeps it while spec.finalizers holds "kubernetes"', async () => {
    await createNs('team');
    const res = await f.json<Namespace>('DELETE', `${namespaces}/team`);
    expect(res.status).toBe(200);
    expect(res.body.status?.phase).toBe('Terminating');
    expect(res.body.metadata.deletionTimestamp).toBe(timestamp(f.clock.now()));
    expect(res.body.spec?.finalizers).toEqual(['kubernetes']);

    const again = await f.json<Namespace>('DELETE', `${namespaces}/team`);
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);

    const create = await f.json<Status>('POST', `${namespaces}/team/pods`, { body: pod('late') });
    expect(create.status).toBe(403);
    expect((await getNs('team')).body.status?.phase).toBe('Terminating');
  });

  it('PUT finalize changes spec.finalizers only, and emptying them removes the deleting namespace', async () => {
    const created = (await createNs('team')).body;
    const kept = await finalize({ ...created, metadata: { ...created.metadata, labels: { sneaky: 'yes' } } }, ['kubernetes', 'example.com/extra']);
    expect(kept.status).toBe(200);
    expect(kept.body.spec?.finalizers).toEqual(['kubernetes', 'example.com/extra']);
    expect(kept.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team' });

    const terminating = (await f.json<Namespace>('DELETE', `${namespaces}/team`)).body;
    const watch = await f.send('GET', namespaces, { query: { watch: 'true', resourceVersion: terminating.metadata.resourceVersion! } });
    expect((await finalize(terminating, ['example.com/extra'])).status).toBe(200);
    expect((await getNs('team')).status).toBe(200);
    const latest = (await getNs('team')).body;
    expect((await finalize(latest, [])).status).toBe(200);
    expect((await getNs('team')).status).toBe(404);
    expect((await takeEvents(watch, 2)).map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
  });

  it('finalize is refused on a stale resourceVersion', async () => {
    const created = (await createNs('team')).body;
    await f.json('PUT', `${namespaces}/team/finalize`, { body: { ...created, spec: { finalizers: ['a.io/x'] } } });
    expect((await finalize(created, [])).status).toBe(409);
  });

  it('a namespace with metadata.finalizers waits for them too', async () => {
    await createNs('team', { finalizers: ['example.com/hold'] });
    const terminating = (await f.json<Namespace>('DELETE', `${namespaces}/team`)).body;
    await finalize(terminating, []);
    expect((await getNs('team')).body.metadata.finalizers).toEqual(['example.com/hold']);
    await f.json('PATCH', `${namespaces}/team`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    expect((await getNs('team')).status).toBe(404);
  });

  it('a namespace without spec.finalizers is Terminating after the first DELETE and removed by the next', async () => {
    const created = (await createNs('bare')).body;
    await finalize(created, []);
    expect((await f.json<Namespace>('DELETE', `${namespaces}/bare`)).body.status?.phase).toBe('Terminating');
    expect((await getNs('bare')).status).toBe(200);
    expect((await f.json('DELETE', `${namespaces}/bare`)).status).toBe(200);
    expect((await getNs('bare')).status).toBe(404);
  });

  it('propagationPolicy Orphan puts the orphan finalizer on the namespace', async () => {
    await createNs('team');
    const res = await f.json<Namespace>('DELETE', `${namespaces}/team`, { query: { propagationPolicy: 'Orphan' } });
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
  });

  it.each(['default', 'kube-system', 'kube-public'])('refuses to delete %s with 403', async (name) => {
    const res = await f.json<Status>('DELETE', `${namespaces}/${name}`);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ reason: 'Forbidden', message: `namespaces "${name}" is forbidden: this namespace may not be deleted`, details: { name, kind: 'namespaces' } });
    expect((await getNs(name)).body.metadata.deletionTimestamp).toBeUndefined();
  });

  it('kube-node-lease may be deleted; namespaces have no deletecollection (405, as kube)', async () => {
    expect((await f.json<Namespace>('DELETE', `${namespaces}/kube-node-lease`)).body.status?.phase).toBe('Terminating');
    await createNs('team');
    expect((await f.json('DELETE', namespaces)).status).toBe(405);
    expect((await getNs('team')).body.metadata.deletionTimestamp).toBeUndefined();
  });
});
