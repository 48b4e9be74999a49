import { describe, expect, it } from 'vitest';
import type { ResourceRef } from '../../../cloud/client/client.js';
import type { ResourceDef } from '../../../cloud/apiserver/kinds/registry.js';
import { clusterResources } from '../../../cloud/apiserver/kinds/resources.js';
import { OwnerGraph } from '../../../cloud/controllers/garbage-collector/graph.js';
import type { GraphEntry } from '../../../cloud/controllers/garbage-collector/object-ref.js';
import { resolveOwners, type OwnerView } from '../../../cloud/controllers/garbage-collector/owners.js';
import { observe } from '../../../cloud/controllers/garbage-collector/triggers.js';
import type { KubeObject, OwnerReference } from '../../../shared/types.js';

const def = (resource: string): ResourceDef => clusterResources.find((d) => d.resource === resource)!;
const pods = def('pods');
const nodes = def('nodes');

const nodeRef = (name: string, uid: string): OwnerReference => ({ apiVersion: 'v1', kind: 'Node', name, uid });
const node = (name: string, uid: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({ kind: 'Node', apiVersion: 'v1', metadata: { name, uid, ...meta } });
const pod = (name: string, uid: string, owners: OwnerReference[]): KubeObject => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', uid, ownerReferences: owners } });

const newView = (): OwnerView => ({ graph: new OwnerGraph(), resources: clusterResources, absent: new Set() });

describe('OwnerGraph', () => {
  it('indexes dependents under the owner uid, follows reference changes and deletions', () => {
    const graph = new OwnerGraph();
    graph.set(pods, pod('p', 'p1', [nodeRef('n', 'n1'), nodeRef('m', 'm1')]));
    expect(graph.dependentsOf('n1').map((e) => e.object.metadata.uid)).toEqual(['p1']);
    expect(graph.set(pods, pod('p', 'p1', [nodeRef('m', 'm1')]))).toEqual(['n1']);
    expect(graph.hasDependents('n1')).toBe(false);
    graph.delete(pod('p', 'p1', []));
    expect(graph.hasDependents('m1')).toBe(false);
    expect(graph.size).toBe(0);
  });
});

describe('observe: which uids a cache event makes worth a look', () => {
  it('an owner that is gone: its dependents', () => {
    const view = newView();
    observe(view, nodes, { type: 'ADDED', object: node('n', 'n1') });
    expect(observe(view, pods, { type: 'ADDED', object: pod('p', 'p1', [nodeRef('n', 'n1')]) })).toEqual([]);
    expect(observe(view, nodes, { type: 'DELETED', object: node('n', 'n1') })).toEqual(['p1']);
  });

  it('a dependent whose owner is not in the cache: itself', () => {
    expect(observe(newView(), pods, { type: 'ADDED', object: pod('p', 'p1', [nodeRef('n', 'n1')]) })).toEqual(['p1']);
  });

  it('an owner being deleted in the foreground: itself and its dependents', () => {
    const view = newView();
    const n = node('n', 'n1');
    observe(view, nodes, { type: 'ADDED', object: n });
    observe(view, pods, { type: 'ADDED', object: pod('p', 'p1', [nodeRef('n', 'n1')]) });
    const deleting = node('n', 'n1', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] });
    expect(observe(view, nodes, { type: 'MODIFIED', object: deleting, old: n }).sort()).toEqual(['n1', 'p1']);
  });

  it('a dependent that goes away or drops its reference: the deleting owner, which may be waiting for it', () => {
    const view = newView();
    observe(view, nodes, { type: 'ADDED', object: node('n', 'n1', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['orphan'] }) });
    const p = pod('p', 'p1', [nodeRef('n', 'n1')]);
    observe(view, pods, { type: 'ADDED', object: p });
    expect(observe(view, pods, { type: 'MODIFIED', object: pod('p', 'p1', []), old: p })).toEqual(['n1']);
    expect(observe(view, pods, { type: 'DELETED', object: pod('p', 'p1', []) })).toEqual([]);
  });
});

describe('resolveOwners: the cache first, then a live read', () => {
  const dependentOf = (...owners: OwnerReference[]): GraphEntry => ({ def: pods, object: pod('p', 'p1', owners) });
  const liveReads = (objects: KubeObject[]) => {
    const reads: string[] = [];
    const get = async (ref: ResourceRef) => {
      reads.push(`${ref.resource}/${ref.name}`);
      return objects.find((o) => o.metadata.name === ref.name);
    };
    return { reads, get };
  };

  it('an owner recreated under the same name with a new uid is dangling, and remembered as gone', async () => {
    const view = newView();
    view.graph.set(nodes, node('n', 'n2'));
    const live = liveReads([node('n', 'n2')]);
    const owners = await resolveOwners(view, dependentOf(nodeRef('n', 'n1')), live.get);
    expect(owners.map((o) => o.state)).toEqual(['dangling']);
    expect(live.reads).toEqual(['nodes/n']);
    expect(view.absent.has('n1')).toBe(true);
    await resolveOwners(view, dependentOf(nodeRef('n', 'n1')), live.get);
    expect(live.reads).toHaveLength(1);
  });

  it('cached owners need no read; a missing one is read live; an unknown kind counts as solid', async () => {
    const view = newView();
    view.graph.set(nodes, node('cached', 'c1', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] }));
    const live = liveReads([node('elsewhere', 'e1')]);
    const unknown: OwnerReference = { apiVersion: 'example.com/v1', kind: 'Gadget', name: 'g', uid: 'g1' };
    const owners = await resolveOwners(view, dependentOf(nodeRef('cached', 'c1'), nodeRef('elsewhere', 'e1'), nodeRef('gone', 'x1'), unknown), live.get);
    expect(owners.map((o) => o.state)).toEqual(['waiting', 'solid', 'dangling', 'solid']);
    expect(live.reads).toEqual(['nodes/elsewhere', 'nodes/gone']);
  });
});
