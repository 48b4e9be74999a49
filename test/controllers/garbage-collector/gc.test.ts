import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import type { ResourceRef } from '../../../cloud/client/client.js';
import { garbageCollector } from '../../../cloud/controllers/garbage-collector/index.js';
import type { KubeObject, OwnerReference, Pod } from '../../../shared/types.js';
import { cluster, gone, testResources, type Cluster } from './cluster.js';

const widgets: ResourceRef = { resource: 'widgets', group: 'test.kedge.io', namespace: 'default' };
const pods: ResourceRef = { resource: 'pods', namespace: 'default' };

describe('garbage collector, in process: each propagation policy', () => {
  let c: Cluster;
  let owner: KubeObject;
  const ownedBy = (o: KubeObject, block: boolean): OwnerReference => ({
    apiVersion: 'test.kedge.io/v1', kind: 'Widget', name: o.metadata.name!, uid: o.metadata.uid!, controller: true, ...(block ? { blockOwnerDeletion: true } : {}),
  });
  const createPod = (name: string, owners: OwnerReference[], extra: Partial<KubeObject['metadata']> = {}) =>
    c.api.create<Pod>(pods, { metadata: { name, ownerReferences: owners, ...extra }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  const podGone = (name: string) => gone(c.api.get({ ...pods, name }));
  const widgetGone = (name: string) => gone(c.api.get({ ...widgets, name }));

  beforeEach(async () => {
    c = await cluster();
    await c.start(garbageCollector(testResources));
    owner = await c.api.create(widgets, { apiVersion: 'test.kedge.io/v1', kind: 'Widget', metadata: { name: 'w' } });
  });
  afterEach(() => c.close());

  it('Background: the owner goes at once, its dependents after it', async () => {
    await createPod('a', [ownedBy(owner, true)]);
    await createPod('b', [ownedBy(owner, false)]);
    await createPod('unrelated', []);
    await c.api.delete({ ...widgets, name: 'w' });
    expect(await widgetGone('w')).toBe(true);
    await c.until(async () => (await podGone('a')) && (await podGone('b')), 'dependents deleted');
    expect(await podGone('unrelated')).toBe(false);
  });

  it('Orphan: the dependents stay, without their reference to the owner, and the owner goes', async () => {
    const other = await c.api.create(widgets, { apiVersion: 'test.kedge.io/v1', kind: 'Widget', metadata: { name: 'other' } });
    await createPod('a', [ownedBy(owner, true), ownedBy(other, false)]);
    await createPod('b', [ownedBy(owner, false)]);
    await c.api.delete({ ...widgets, name: 'w' }, { propagationPolicy: 'Orphan' });
    await c.until(() => widgetGone('w'), 'owner removed once orphaning is done');
    const a = await c.api.get<Pod>({ ...pods, name: 'a' });
    const b = await c.api.get<Pod>({ ...pods, name: 'b' });
    expect(a.metadata.ownerReferences?.map((r) => r.name)).toEqual(['other']);
    expect(b.metadata.ownerReferences).toBeUndefined();
    await c.clock.advance(1_000);
    expect(await podGone('b')).toBe(false);
  });

  it('Foreground: the owner waits, with its finalizer, until its blocking dependents are gone', async () => {
    await createPod('blocking', [ownedBy(owner, true)], { finalizers: ['example.com/hold'] });
    await createPod('plain', [ownedBy(owner, false)]);
    const deletions: { name: string; rv: number }[] = [];
    const subs: Subscription[] = [widgets, pods].map((ref) =>
      c.api.watch(ref, { resourceVersion: owner.metadata.resourceVersion }).subscribe((e) => {
        if (e.type === 'DELETED') deletions.push({ name: e.object.metadata.name!, rv: Number(e.object.metadata.resourceVersion) });
      }),
    );
    await c.api.delete({ ...widgets, name: 'w' }, { propagationPolicy: 'Foreground' });
    await c.until(() => podGone('plain'), 'non-blocking dependent deleted');
    await c.until(async () => (await c.api.get<Pod>({ ...pods, name: 'blocking' })).metadata.deletionTimestamp !== undefined, 'blocking dependent deleting');
    await c.clock.advance(1_000);
    const waiting = await c.api.get({ ...widgets, name: 'w' });
    expect(waiting.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(waiting.metadata.deletionTimestamp).toBeDefined();

    await c.api.patch({ ...pods, name: 'blocking' }, { metadata: { finalizers: null } });
    await c.until(() => widgetGone('w'), 'owner removed after its blocking dependent');
    const at = (name: string) => deletions.find((d) => d.name === name)!.rv;
    expect(at('blocking')).toBeLessThan(at('w'));
    for (const s of subs) s.unsubscribe();
  });

  it('an owner reference to an older object of the same name counts as gone', async () => {
    const stale: OwnerReference = { ...ownedBy(owner, false), uid: 'uid-of-an-earlier-w' };
    await createPod('stale', [stale]);
    await createPod('current', [ownedBy(owner, false)]);
    await c.until(() => podGone('stale'), 'dependent of the replaced owner deleted');
    expect(await podGone('current')).toBe(false);
  });

  it('with two owners, losing one only drops that reference', async () => {
    const other = await c.api.create(widgets, { apiVersion: 'test.kedge.io/v1', kind: 'Widget', metadata: { name: 'other' } });
    await createPod('shared', [ownedBy(owner, false), ownedBy(other, false)]);
    await c.api.delete({ ...widgets, name: 'w' });
    await c.until(async () => (await c.api.get<Pod>({ ...pods, name: 'shared' })).metadata.ownerReferences?.length === 1, 'reference to w dropped');
    await c.api.delete({ ...widgets, name: 'other' });
    await c.until(() => podGone('shared'), 'deleted once its last owner is gone');
  });
});
