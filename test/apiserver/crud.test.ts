import { describe, expect, it } from 'vitest';
import { KedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, node, pod } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';

describe('apiserver CRUD through handle', () => {
  it('creates a pod with server metadata and Kubernetes defaults', async () => {
    const f = await apiFixture();
    const res = await f.json<Pod>('POST', pods, { body: pod('web', { status: { phase: 'Running' } }) });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p.kind).toBe('Pod');
    expect(p.apiVersion).toBe('v1');
    expect(p.metadata.namespace).toBe('default');
    expect(p.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.metadata.creationTimestamp).toBe('2026-01-01T00:00:00Z');
    expect(p.metadata.generation).toBe(1);
    expect(p.metadata.resourceVersion).toBe(String(f.store.revision));
    expect(p.spec).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
    expect(p.spec.containers[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
    expect(p.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect((await f.store.get('/registry/pods/default/web'))?.modRevision).toBe(Number(p.metadata.resourceVersion));
  });

  it('gets, lists, updates and deletes', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    await f.json('POST', pods, { body: pod('b') });
    const got = await f.json<Pod>('GET', `${pods}/a`);
    expect(got.body.metadata.name).toBe('a');
    const list = await f.json<{ kind: string; metadata: { resourceVersion: string }; items: Pod[] }>('GET', pods);
    expect(list.body.kind).toBe('PodList');
    expect(list.body.metadata.resourceVersion).toBe(String(f.store.revision));
    expect(list.body.items.map((p) => p.metadata.name)).toEqual(['a', 'b']);
    const all = await f.json<{ items: Pod[] }>('GET', '/api/v1/pods');
    expect(all.body.items).toHaveLength(2);

    const changed = { ...got.body, metadata: { ...got.body.metadata, labels: { tier: 'web' } } };
    const put = await f.json<Pod>('PUT', `${pods}/a`, { body: changed });
    expect(put.status).toBe(200);
    expect(put.body.metadata.labels).toEqual({ tier: 'web' });
    expect(put.body.metadata.uid).toBe(got.body.metadata.uid);
    expect(Number(put.body.metadata.resourceVersion)).toBeGreaterThan(Number(got.body.metadata.resourceVersion));

    const del = await f.json<Pod>('DELETE', `${pods}/a`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.name).toBe('a');
    const gone = await f.json<{ reason: string; message: string }>('GET', `${pods}/a`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'pods "a" not found' });
  });

  it('answers 409 Conflict for a stale resourceVersion and AlreadyExists for a duplicate', async () => {
    const f = await apiFixture();
    const created = (await f.json<Pod>('POST', pods, { body: pod('a') })).body;
    await f.json('PUT', `${pods}/a`, { body: { ...created, metadata: { ...created.metadata, labels: { x: '1' } } } });
    const stale = await f.json<{ reason: string; message: string }>('PUT', `${pods}/a`, { body: { ...created, metadata: { ...created.metadata, labels: { x: '2' } } } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified; please apply your changes to the latest version and try again');
    const dup = await f.json<{ reason: string }>('POST', pods, { body: pod('a') });
    expect(dup.status).toBe(409);
    expect(dup.body.reason).toBe('AlreadyExists');
  });

  it('keeps status on main-resource updates and changes only status through /status', async () => {
    const f = await apiFixture();
    const created = (await f.json<Pod>('POST', pods, { body: pod('a') })).body;
    const viaMain = await f.json<Pod>('PUT', `${pods}/a`, { body: { ...created, status: { phase: 'Running' } } });
    expect(viaMain.body.status?.phase).toBe('Pending');
    const viaStatus = await f.json<Pod>('PUT', `${pods}/a/status`, {
      body: { ...viaMain.body, spec: { ...viaMain.body.spec, nodeName: 'sneaky' }, status: { phase: 'Running', podIP: '10.1.0.5' } },
    });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.body.status).toEqual({ phase: 'Running', podIP: '10.1.0.5' });
    expect(viaStatus.body.spec.nodeName).toBeUndefined();
    const patched = await f.json<Pod>('PATCH', `${pods}/a/status`, { body: { status: { phase: 'Succeeded' } }, contentType: 'application/merge-patch+json' });
    expect(patched.body.status?.phase).toBe('Succeeded');
    expect(patched.body.metadata.generation).toBe(1);
  });

  it('takes an update that only reorders members as no change: the resourceVersion stays', async () => {
    const f = await apiFixture();
    await f.json<Pod>('POST', pods, { body: pod('a') });
    const running = (await f.json<Pod>('PUT', `${pods}/a/status`, { body: { ...(await f.json<Pod>('GET', `${pods}/a`)).body, status: { phase: 'Running', podIP: '10.1.0.5' } } })).body;
    const reordered = await f.json<Pod>('PUT', `${pods}/a/status`, { body: { ...running, status: { podIP: '10.1.0.5', phase: 'Running' } } });
    expect(reordered.status).toBe(200);
    expect(reordered.body.metadata.resourceVersion).toBe(running.metadata.resourceVersion);
    const { metadata, ...rest } = running;
    const main = await f.json<Pod>('PUT', `${pods}/a`, { body: { metadata: { ...metadata, labels: {} }, ...rest } });
    expect(main.body.metadata.resourceVersion).not.toBe(running.metadata.resourceVersion);
    const again = await f.json<Pod>('PUT', `${pods}/a`, { body: { spec: main.body.spec, metadata: main.body.metadata } });
    expect(again.body.metadata.resourceVersion).toBe(main.body.metadata.resourceVersion);
  });

  it('writes a PUT again from its body when another apiserver wrote in between', async () => {
    const f = await apiFixture();
    const created = (await f.json<Pod>('POST', pods, { body: pod('a') })).body;
    const update = f.store.update.bind(f.store);
    let interloped = false;
    f.store.update = async (key, value, expected) => {
      if (!interloped) {
        interloped = true;
        const { kind: _k, apiVersion: _a, ...rest } = value as Pod;
        await update(key, { ...rest, metadata: { ...rest.metadata, annotations: { other: 'apiserver' } } });
      }
      return update(key, value, expected);
    };
    const { metadata, ...rest } = created;
    const { resourceVersion: _rv, ...unversioned } = metadata;
    const put = await f.json<Pod>('PUT', `${pods}/a`, { body: { ...rest, spec: { ...rest.spec, unknownField: 'x' }, metadata: { ...unversioned, labels: { put: 'yes' } } } });
    expect(put.status).toBe(200);
    expect(interloped).toBe(true);
    expect(put.body.metadata.labels).toEqual({ put: 'yes' });
    expect(put.body.spec).not.toHaveProperty('unknownField'); // dropped from the second attempt's body too
    expect(put.body.metadata.annotations).toBeUndefined();
    const managers = (p: Pod): unknown => (p.metadata as { managedFields?: { manager: string }[] }).managedFields?.map((m) => m.manager);
    expect(managers(put.body)).toEqual(managers(created));
    expect(Number(put.body.metadata.resourceVersion)).toBe(f.store.revision);
  });

  it('picks another generated name when the first is taken meanwhile', async () => {
    const f = await apiFixture();
    const create = f.store.create.bind(f.store);
    const names: string[] = [];
    f.store.create = async (key, value) => {
      names.push(key);
      if (names.length === 1) throw new KedgeError('AlreadyExists', `key ${key} already exists`);
      return create(key, value);
    };
    const res = await f.json<Pod>('POST', pods, { body: { ...pod(''), spec: { ...pod('').spec, unknownField: 'x' }, metadata: { generateName: 'web-' } } });
    expect(res.status).toBe(201);
    expect(res.body.spec).not.toHaveProperty('unknownField'); // dropped from the second attempt's body too
    expect(names).toHaveLength(2);
    expect(names[1]).not.toBe(names[0]);
    expect(names[1]).toBe(`/registry/pods/default/${res.body.metadata.name}`);
  });

  it('supports generateName, bumps generation on spec changes, and requires the namespace to exist', async () => {
    const f = await apiFixture();
    const gen = await f.json<Pod>('POST', pods, { body: { ...pod(''), metadata: { generateName: 'web-' } } });
    expect(gen.status).toBe(201);
    expect(gen.body.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const bumped = await f.json<Pod>('PATCH', `${pods}/${gen.body.metadata.name}`, {
      body: { spec: { activeDeadlineSeconds: 10 } },
      contentType: 'application/merge-patch+json',
    });
    expect(bumped.body.metadata.generation).toBe(2);
    const missing = await f.json<{ reason: string; message: string }>('POST', '/api/v1/namespaces/nope/pods', { body: pod('x') });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', message: 'namespaces "nope" not found' });
  });

  it('serves cluster-scoped nodes and namespaces, with the system namespaces present', async () => {
    const f = await apiFixture();
    const ns = await f.json<{ items: { metadata: { name: string }; status: { phase: string } }[] }>('GET', '/api/v1/namespaces');
    expect(ns.body.items.map((n) => n.metadata.name)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(ns.body.items[0]!.status.phase).toBe('Active');
    const created = await f.json<{ status: unknown }>('POST', '/api/v1/nodes', { body: node('edge-1') });
    expect(created.status).toBe(201);
    expect(created.body.status).toMatchObject({ conditions: [{ type: 'Ready', status: 'True' }] });
    expect((await f.json('GET', '/api/v1/nodes/edge-1')).status).toBe(200);
    expect((await f.json('GET', '/api/v1/namespaces/default/nodes/edge-1')).status).toBe(404);
  });

  it('rejects invalid objects with 422 Invalid and causes', async () => {
    const f = await apiFixture();
    const res = await f.json<{ reason: string; message: string; details: { causes: { field: string }[] } }>('POST', pods, {
      body: { metadata: { name: 'Bad_Name' }, spec: { containers: [{ name: '', image: '' }] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toMatch(/^Pod "Bad_Name" is invalid: /);
    expect(res.body.details.causes.map((c) => c.field)).toEqual(['metadata.name', 'spec.containers[0].name', 'spec.containers[0].image']);
    const empty = await f.json<{ details: { causes: { field: string }[] } }>('POST', pods, { body: { metadata: { name: 'x' }, spec: { containers: [] } } });
    expect(empty.status).toBe(422);
    expect(empty.body.details.causes[0]!.field).toBe('spec.containers');
  });
});
