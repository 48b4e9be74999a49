import type { KubeObject } from '../../../shared/types.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, hasFinalizer, isDeleting } from '../../client/deletion.js';
import type { ApiResource } from '../../client/api-resource.js';
import type { CacheEvent } from '../../informer/informer.js';
import { ownerReferencesOf } from './object-ref.js';
import { needsLook, type OwnerView } from './owners.js';

/**
 * Records a cache event in the graph and returns the uids worth reconciling (kube's graph
 * builder): the dependents of an owner that is gone or deleting in the foreground, an owner
 * whose orphan/foreground work may be due, and a dependent whose owners are not all solid.
 */
export function observe(view: OwnerView, def: ApiResource, event: CacheEvent<KubeObject>): string[] {
  if (event.type === 'SYNCED') return [];
  const { graph } = view;
  const object = event.object;
  const uid = object.metadata.uid!;
  const keys = new Set<string>();
  const ownerUids = ownerReferencesOf(object).map((r) => r.uid);
  if (event.type === 'DELETED') {
    graph.delete(object);
    for (const dep of graph.dependentsOf(uid)) keys.add(dep.object.metadata.uid!);
  } else {
    const dropped = graph.set(def, object);
    ownerUids.push(...dropped);
    if (isDeleting(object) && (hasFinalizer(object, ORPHAN_FINALIZER) || hasFinalizer(object, FOREGROUND_FINALIZER))) keys.add(uid);
    if (isDeleting(object) && hasFinalizer(object, FOREGROUND_FINALIZER)) {
      for (const dep of graph.dependentsOf(uid)) keys.add(dep.object.metadata.uid!);
    }
    if (!isDeleting(object) && needsLook(view, { def, object })) keys.add(uid);
  }
  // An owner being deleted may be waiting for this dependent, or may have more to orphan.
  for (const owner of ownerUids) {
    const entry = graph.get(owner);
    if (entry && isDeleting(entry.object)) keys.add(owner);
  }
  return [...keys];
}
