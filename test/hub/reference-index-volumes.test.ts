import { describe, expect, it } from 'vitest';
import { ReferenceIndex, type ReferenceAction, type ReferencedKind } from '../../cloud/hub/reference-index.js';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';

/** A pod on `node` mounting the claims. */
const pod = (uid: string, node: string, claims: string[]): Pod => ({
  metadata: { namespace: 'default', name: `p-${uid}`, uid },
  spec: { nodeName: node, containers: [{ name: 'c' }], volumes: claims.map((claimName) => ({ name: claimName, persistentVolumeClaim: { claimName } })) },
});
const claim = (name: string, uid: string, volumeName?: string, rv = '1'): PersistentVolumeClaim => ({
  metadata: { namespace: 'default', name, uid, resourceVersion: rv },
  spec: volumeName ? { volumeName } : {},
});
const volume = (name: string, uid: string, rv = '1'): PersistentVolume => ({ metadata: { name, uid, resourceVersion: rv }, spec: { hostPath: { path: `/data/${name}` } } });

type Step = ['pod', CacheEvent<Pod>['type'], Pod, Pod?] | [ReferencedKind, CacheEvent<SyncedObject>['type'], SyncedObject, SyncedObject?];

const summary = (a: ReferenceAction): string => (a.type === 'want' ? `${a.node} want ${a.object.ref.kind}/${a.object.ref.name} ${a.object.ref.uid}@${a.object.ref.resourceVersion}` : `${a.node} unwant ${a.uid}`);

function event<T>(type: CacheEvent<T>['type'], object: T, old?: T): CacheEvent<T> {
  if (type === 'MODIFIED') return { type, object, old: old ?? object };
  return type === 'SYNCED' ? { type } : { type, object };
}

function lastPlan(steps: Step[]): string[] {
  const index = new ReferenceIndex();
  let last: ReferenceAction[] = [];
  for (const [what, type, object, old] of steps) {
    last = what === 'pod' ? index.onPodEvent(event(type, object as Pod, old as Pod)) : index.onObjectEvent(what, event(type, object, old));
  }
  return last.map(summary);
}

const bound: Step[] = [
  ['PersistentVolume', 'ADDED', volume('pv-1', 'v1')],
  ['PersistentVolumeClaim', 'ADDED', claim('data', 'c1', 'pv-1')],
];

describe('ReferenceIndex: claims and the volumes they are bound to [SYNC-18]', () => {
  it.each<{ name: string; steps: Step[]; last: string[] }>([
    { name: 'a pod mounting a bound claim: the node wants the claim, then its volume', steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])]], last: ['edge-1 want PersistentVolumeClaim/data c1@1', 'edge-1 want PersistentVolume/pv-1 v1@1'] },
    { name: 'a volume no needed claim is bound to goes nowhere', steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['PersistentVolume', 'ADDED', volume('pv-1', 'v1')]], last: [] },
    {
      name: 'the claim binds (WaitForFirstConsumer): the volume follows',
      steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['PersistentVolumeClaim', 'ADDED', claim('data', 'c1')], ['PersistentVolume', 'ADDED', volume('pv-1', 'v1')], ['PersistentVolumeClaim', 'MODIFIED', claim('data', 'c1', 'pv-1', '2'), claim('data', 'c1')]],
      last: ['edge-1 want PersistentVolumeClaim/data c1@2', 'edge-1 want PersistentVolume/pv-1 v1@1'],
    },
    {
      name: 'volumeName changes: the new volume is wanted, the old one not',
      steps: [...bound, ['PersistentVolume', 'ADDED', volume('pv-2', 'v2')], ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['PersistentVolumeClaim', 'MODIFIED', claim('data', 'c1', 'pv-2', '2'), claim('data', 'c1', 'pv-1')]],
      last: ['edge-1 want PersistentVolumeClaim/data c1@2', 'edge-1 want PersistentVolume/pv-2 v2@1', 'edge-1 unwant v1'],
    },
    { name: 'a change of the volume reaches the node', steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['PersistentVolume', 'MODIFIED', volume('pv-1', 'v1', '5')]], last: ['edge-1 want PersistentVolume/pv-1 v1@5'] },
    { name: 'the claim deleted: claim and volume unwanted', steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['PersistentVolumeClaim', 'DELETED', claim('data', 'c1', 'pv-1')]], last: ['edge-1 unwant c1', 'edge-1 unwant v1'] },
    { name: 'the last pod gone: claim and volume unwanted', steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['pod', 'DELETED', pod('p1', 'edge-1', ['data'])]], last: ['edge-1 unwant c1', 'edge-1 unwant v1'] },
    { name: 'another pod still mounts it: both kept', steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['pod', 'ADDED', pod('p2', 'edge-1', ['data'])], ['pod', 'DELETED', pod('p1', 'edge-1', ['data'])]], last: [] },
    {
      name: 'two claims bound to one volume (by name): the volume stays while either is needed',
      steps: [...bound, ['PersistentVolumeClaim', 'ADDED', claim('more', 'c2', 'pv-1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['data', 'more'])], ['pod', 'MODIFIED', pod('p1', 'edge-1', ['more']), pod('p1', 'edge-1', ['data', 'more'])]],
      last: ['edge-1 unwant c1'],
    },
    {
      name: 'a pod moved: the new node wants claim and volume, the old one loses both',
      steps: [...bound, ['pod', 'ADDED', pod('p1', 'edge-1', ['data'])], ['pod', 'MODIFIED', pod('p1', 'edge-2', ['data']), pod('p1', 'edge-1', ['data'])]],
      last: ['edge-2 want PersistentVolumeClaim/data c1@1', 'edge-2 want PersistentVolume/pv-1 v1@1', 'edge-1 unwant c1', 'edge-1 unwant v1'],
    },
  ])('$name', ({ steps, last }) => {
    expect(lastPlan(steps)).toEqual(last);
  });
});
