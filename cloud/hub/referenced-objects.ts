import type { Subscription } from 'rxjs';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { Informers } from '../informer/shared-informers.js';
import type { ReferenceIndex, ReferencedKind } from './reference-index.js';
import type { Sessions } from './sessions.js';

const RESOURCES: readonly [ReferencedKind, string][] = [
  ['ConfigMap', 'configmaps'],
  ['Secret', 'secrets'],
  ['PersistentVolumeClaim', 'persistentvolumeclaims'],
  ['PersistentVolume', 'persistentvolumes'],
];

/**
 * [SYNC-18] Follows every ConfigMap, Secret, claim and volume (through the hub's own informers: the cloud
 * reads them, a node never lists them) into the reference index, and what it plans into the
 * sessions. `synced` resolves once every first list is in: hellos are answered only after.
 */
export function followReferencedObjects(informers: Informers, references: ReferenceIndex, sessions: Sessions): { subscriptions: Subscription[]; synced: Promise<unknown> } {
  const lists: Promise<void>[] = [];
  const subscriptions = RESOURCES.map(([kind, resource]) => {
    let listed!: () => void;
    lists.push(new Promise<void>((resolve) => (listed = resolve)));
    return informers.of<SyncedObject>({ resource }).subscribe((event) => {
      sessions.onReferences(references.onObjectEvent(kind, event));
      if (event.type === 'SYNCED') listed();
    });
  });
  return { subscriptions, synced: Promise.all(lists) };
}
