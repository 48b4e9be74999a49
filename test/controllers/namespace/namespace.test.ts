import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResourceRef } from '../../../cloud/client/client.js';
import { namespaceController } from '../../../cloud/controllers/namespace/index.js';
import type { Namespace, Pod } from '../../../shared/types.js';
import { cluster, gone, testResources, type Cluster } from '../garbage-collector/cluster.js';

const namespaces: ResourceRef = { resource: 'namespaces' };
const podsIn = (namespace: string): ResourceRef => ({ resource: 'pods', namespace });

describe('namespace controller, in process', () => {
  let c: Cluster;
  const createPod = (namespace: string, name: string, finalizers?: string[]) =>
    c.api.create<Pod>(podsIn(namespace), { metadata: { name, finalizers }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  const nsGone = (name: string) => gone(c.api.get({ ...namespaces, name }));

  beforeEach(async () => {
    c = await cluster();
    await c.start(namespaceController(testResources, { backoff: { minMs: 100, maxMs: 400 } }));
    for (const name of ['team', 'other']) await c.api.create<Namespace>(namespaces, { metadata: { name } });
  });
  afterEach(() => c.close());

  it('deletes the pods, the widgets and the events of a deleted namespace, then the namespace', async () => {
    await createPod('team', 'a');
    await createPod('team', 'b');
    await createPod('other', 'c');
    await c.api.create({ resource: 'widgets', group: 'test.kedge.io', namespace: 'team' }, { metadata: { name: 'w' } });
    await c.api.create({ resource: 'events', namespace: 'team' }, {
      metadata: { name: 'a.1' }, involvedObject: { kind: 'Pod', name: 'a', namespace: 'team' }, reason: 'Created', message: 'created', type: 'Normal',
    } as never);
    const terminating = await c.api.delete({ ...namespaces, name: 'team' }) as Namespace;
    expect(terminating.status?.phase).toBe('Terminating');

    await c.until(() => nsGone('team'), 'namespace removed');
    for (const ref of [podsIn('team'), { resource: 'widgets', group: 'test.kedge.io', namespace: 'team' }, { resource: 'events', namespace: 'team' }]) {
      expect((await c.api.list(ref)).items).toEqual([]);
    }
    expect((await c.api.list(podsIn('other'))).items.map((p) => p.metadata.name)).toEqual(['c']);
  });

  it('stays Terminating while an object in it has a finalizer, and goes once it is released', async () => {
    await createPod('team', 'held', ['example.com/hold']);
    await c.api.delete({ ...namespaces, name: 'team' });
    await c.until(async () => (await c.api.get<Pod>({ ...podsIn('team'), name: 'held' })).metadata.deletionTimestamp !== undefined, 'pod marked');
    await c.clock.advance(2_000);
    const ns = await c.api.get<Namespace>({ ...namespaces, name: 'team' });
    expect(ns.status?.phase).toBe('Terminating');
    expect(ns.spec?.finalizers).toEqual(['kubernetes']);

    await c.api.patch({ ...podsIn('team'), name: 'held' }, { metadata: { finalizers: null } });
    await c.until(() => nsGone('team'), 'namespace removed after the pod');
  });

  it('removes a namespace that had no spec.finalizers', async () => {
    const ns = await c.api.get<Namespace>({ ...namespaces, name: 'other' });
    await c.api.replace({ ...namespaces, name: 'other', subresource: 'finalize' }, { ...ns, spec: { finalizers: [] } });
    await createPod('other', 'c');
    await c.api.delete({ ...namespaces, name: 'other' });
    await c.until(() => nsGone('other'), 'namespace removed');
    expect((await c.api.list(podsIn('other'))).items).toEqual([]);
  });
});
