import { ANN_SELECTED_NODE, claimClass, STORAGE_GROUP, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../../shared/storage-types.js';
import type { Node } from '../../../shared/types.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { ObjectCache } from '../object-cache.js';
import { applyVolumeActions } from './apply.js';
import { planClaim } from './claim-plan.js';
import { planVolume } from './volume-plan.js';

/**
 * kube-controller-manager's persistentvolume-binder in miniature: binds claims to volumes
 * (claim-plan.ts), keeps the volumes' phases and reclaims released ones (volume-plan.ts).
 * Queue keys are `claim:<namespace>/<name>` and `volume:<name>`.
 */
export const persistentVolumeController: Controller = { name: 'persistentvolume-binder', start: startPersistentVolumeController };

const claimKey = (namespace: string | undefined, name: string | undefined): string => `claim:${namespace ?? ''}/${name ?? ''}`;
const volumeKey = (name: string | undefined): string => `volume:${name ?? ''}`;

async function startPersistentVolumeController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, events } = ctx;
  const logger = ctx.logger.child('persistentvolume-binder');
  const claims = new ObjectCache<PersistentVolumeClaim>();
  const volumes = new ObjectCache<PersistentVolume>();
  const classes = new ObjectCache<StorageClass>();
  const nodes = new ObjectCache<Node>();
  const said = new Set<string>();
  /** An object gone: the Events said about it may be said again of a new one of the same name. */
  const forget = (uid: string | undefined): void => {
    for (const key of [...said]) if (key.startsWith(`${uid}/`)) said.delete(key);
  };

  const reconcile = async (key: string): Promise<void> => {
    const deps = { api, clock, events, said };
    if (key.startsWith('volume:')) {
      const volume = volumes.get(undefined, key.slice('volume:'.length));
      if (!volume) return;
      const ref = volume.spec.claimRef;
      const claim = ref?.name ? claims.get(ref.namespace, ref.name) : undefined;
      return applyVolumeActions(deps, planVolume(volume, claim));
    }
    const [namespace, name] = key.slice('claim:'.length).split('/') as [string, string];
    const claim = claims.get(namespace, name);
    if (!claim) return;
    const selected = claim.metadata.annotations?.[ANN_SELECTED_NODE];
    const selectedNodeLabels = selected ? nodes.get(undefined, selected)?.metadata.labels ?? undefined : undefined;
    const storageClass = classes.get(undefined, claimClass(claim));
    await applyVolumeActions(deps, planClaim({ claim, volumes: [...volumes.all()], storageClass, selectedNodeLabels }));
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: 30_000 } });
  const queueClaimsOfClass = (name: string): void => {
    for (const c of claims.all()) if (!c.spec.volumeName && claimClass(c) === name) loop.queue.add(claimKey(c.metadata.namespace, c.metadata.name));
  };
  await loop.start([
    source(ctx.informers.of<PersistentVolumeClaim>({ resource: 'persistentvolumeclaims' }), (e) => {
      claims.apply(e);
      if (e.type === 'SYNCED') return;
      const { namespace, name, uid } = e.object.metadata;
      if (e.type !== 'DELETED') return loop.queue.add(claimKey(namespace, name));
      forget(uid);
      for (const v of volumes.all()) if (v.spec.claimRef?.uid === uid) loop.queue.add(volumeKey(v.metadata.name));
    }),
    source(ctx.informers.of<PersistentVolume>({ resource: 'persistentvolumes' }), (e) => {
      volumes.apply(e);
      if (e.type === 'SYNCED') return;
      const { name, uid } = e.object.metadata;
      if (e.type !== 'DELETED') loop.queue.add(volumeKey(name));
      else forget(uid);
      const ref = e.object.spec?.claimRef;
      if (ref?.name) loop.queue.add(claimKey(ref.namespace, ref.name));
      // A volume that appears or frees up may be the one a waiting claim needs.
      for (const c of claims.all()) if (!c.spec.volumeName) loop.queue.add(claimKey(c.metadata.namespace, c.metadata.name));
    }),
    source(ctx.informers.of<StorageClass>({ resource: 'storageclasses', group: STORAGE_GROUP }), (e) => {
      classes.apply(e);
      if (e.type !== 'SYNCED') queueClaimsOfClass(e.object.metadata.name ?? '');
    }),
    source(ctx.informers.of<Node>({ resource: 'nodes' }), (e) => {
      nodes.apply(e);
      // A claim promised to a node not seen yet is matched against its labels once it is.
      if (e.type === 'ADDED') for (const c of claims.all()) if (!c.spec.volumeName && c.metadata.annotations?.[ANN_SELECTED_NODE] === e.object.metadata.name) loop.queue.add(claimKey(c.metadata.namespace, c.metadata.name));
    }),
  ]);
  return { close: () => loop.close() };
}
