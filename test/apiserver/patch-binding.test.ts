import { describe, expect, it } from 'vitest';
import type { Node, Pod } from '../../shared/types.js';
import { jsonPatch, mergePatch } from '../../cloud/apiserver/patch/patch.js';
import { apiFixture, node, pod } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';

describe('patches', () => {
  it('merge patch follows RFC 7386', () => {
    expect(mergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } })).toEqual({ a: 'z', c: { d: 'e' } });
    expect(mergePatch({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
    expect(mergePatch({ a: 1 }, { b: { c: null } })).toEqual({ a: 1, b: {} });
  });

  it('json patch follows RFC 6902', () => {
    const doc = { a: { b: [1, 2] }, c: 'x' };
    expect(jsonPatch(doc, [{ op: 'add', path: '/a/b/1', value: 9 }, { op: 'remove', path: '/c' }, { op: 'replace', path: '/a/b/0', value: 0 }])).toEqual({ a: { b: [0, 9, 2] } });
    expect(jsonPatch(doc, [{ op: 'move', from: '/c', path: '/d' }, { op: 'copy', from: '/d', path: '/e' }])).toEqual({ a: { b: [1, 2] }, d: 'x', e: 'x' });
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/c', value: 'y' }])).toThrow(/testing value/);
    expect(doc).toEqual({ a: { b: [1, 2] }, c: 'x' });
  });

  it('cordons and uncordons a node with strategic merge patch, as kubectl does', async () => {
    const f = await apiFixture();
    await f.json('POST', '/api/v1/nodes', { body: node('edge-1') });
    const smp = 'application/strategic-merge-patch+json';
    const cordoned = await f.json<Node>('PATCH', '/api/v1/nodes/edge-1', { body: { spec: { unschedulable: true } }, contentType: smp });
    expect(cordoned.status).toBe(200);
    expect(cordoned.body.spec?.unschedulable).toBe(true);
    const back = await f.json<Node>('PATCH', '/api/v1/nodes/edge-1', { body: { spec: { unschedulable: null } }, contentType: smp });
    expect(back.body.spec?.unschedulable).toBeUndefined();
  });

  it('applies merge and json patches to pods, ignores status on the main resource, and checks a patched resourceVersion', async () => {
    const f = await apiFixture();
    const created = (await f.json<Pod>('POST', pods, { body: pod('a') })).body;
    const merged = await f.json<Pod>('PATCH', `${pods}/a`, {
      body: { metadata: { labels: { app: 'web' } }, status: { phase: 'Running' } },
      contentType: 'application/merge-patch+json',
    });
    expect(merged.body.metadata.labels).toEqual({ app: 'web' });
    expect(merged.body.status?.phase).toBe('Pending');
    const json = await f.json<Pod>('PATCH', `${pods}/a`, {
      body: [{ op: 'add', path: '/metadata/annotations', value: { note: 'x' } }],
      contentType: 'application/json-patch+json',
    });
    expect(json.body.metadata.annotations).toEqual({ note: 'x' });
    const stale = await f.json<{ reason: string }>('PATCH', `${pods}/a`, {
      body: { metadata: { resourceVersion: created.metadata.resourceVersion, labels: { b: '1' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(stale.status).toBe(409);
    const unsupported = await f.json<{ reason: string }>('PATCH', `${pods}/a`, { body: {}, contentType: 'text/plain' });
    expect(unsupported.status).toBe(415);
    const missing = await f.json<{ reason: string }>('PATCH', `${pods}/zz`, { body: {}, contentType: 'application/merge-patch+json' });
    expect(missing.status).toBe(404);
  });
});

describe('pods/binding', () => {
  it('binds an unbound pod once and answers 409 afterwards', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const bind = await f.json<{ status: string }>('POST', `${pods}/a/binding`, {
      body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a' }, target: { apiVersion: 'v1', kind: 'Node', name: 'edge-1' } },
    });
    expect(bind.status).toBe(201);
    expect(bind.body.status).toBe('Success');
    const bound = (await f.json<Pod>('GET', `${pods}/a`)).body;
    expect(bound.spec.nodeName).toBe('edge-1');
    expect(bound.status?.conditions).toEqual([{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
    const again = await f.json<{ reason: string; message: string }>('POST', `${pods}/a/binding`, { body: { target: { name: 'edge-2' } } });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('already assigned to node "edge-1"');
    const noTarget = await f.json('POST', `${pods}/a/binding`, { body: { target: {} } });
    expect(noTarget.status).toBe(422);
    const missing = await f.json('POST', `${pods}/nope/binding`, { body: { target: { name: 'edge-1' } } });
    expect(missing.status).toBe(404);
  });
});
