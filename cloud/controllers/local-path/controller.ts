import type { ConfigMap } from '../../../shared/config-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { ANN_SELECTED_NODE, claimClass, STORAGE_GROUP, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../../shared/storage-types.js';
import { getOrUndefined } from '../../client/client.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { ObjectCache } from '../object-cache.js';
import { basePathFor, CONFIG_NAME, CONFIG_NAMESPACE, localPathVolume, needsVolume, shouldDelete, volumeNameFor } from './plan.js';

/**
 * rancher/local-path-provisioner, run on the cloud through the API only: a claim of a
 * `rancher.io/local-path` class whose node the scheduler picked gets a hostPath volume on that
 * node; a released volume it made with policy Delete is deleted. Unlike upstream it runs no
 * helper pods: the edge's hostPath plugin makes the directory (DirectoryOrCreate) when a pod
 * mounts it, so provisioning needs no edge online, and the directory stays on the edge when the
 * volume is deleted. Queue keys are `claim:<namespace>/<name>` and `volume:<name>`.
 */
export const localPathProvisioner: Controller = { name: 'local-path-provisioner', start: startLocalPathProvisioner };

async function startLocalPathProvisioner(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, events } = ctx;
  const logger = ctx.logger.child('local-path-provisioner');
  const claims = new ObjectCache<PersistentVolumeClaim>();
  const volumes = new ObjectCache<PersistentVolume>();
  const classes = new ObjectCache<StorageClass>();

  const provision = async (claim: PersistentVolumeClaim, storageClass: StorageClass): Promise<void> => {
    const { namespace, name } = claim.metadata;
    events.record(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${namespace}/${name}"`);
    try {
      const config = await getOrUndefined(() => api.get<ConfigMap>({ resource: 'configmaps', namespace: CONFIG_NAMESPACE, name: CONFIG_NAME }));
      const volume = localPathVolume(claim, storageClass, basePathFor(config, claim.metadata.annotations?.[ANN_SELECTED_NODE] ?? ''));
      await api.create<PersistentVolume>({ resource: 'persistentvolumes' }, volume).catch((err: unknown) => {
        if (!isKedgeError(err, 'AlreadyExists')) throw err;
      });
      logger.info('provisioned a volume', { claim: `${namespace}/${name}`, volume: volume.metadata.name, path: volume.spec.hostPath?.path });
      events.record(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volume.metadata.name}`);
    } catch (err) {
      events.record(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${storageClass.metadata.name}": ${String(err)}`);
      throw err;
    }
  };

  const reconcile = async (key: string): Promise<void> => {
    if (key.startsWith('volume:')) {
      const volume = volumes.get(undefined, key.slice('volume:'.length));
      if (!volume || !shouldDelete(volume)) return;
      const { name, uid } = volume.metadata;
      await api.delete({ resource: 'persistentvolumes', name }, { preconditions: { uid } }).catch((err: unknown) => {
        if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
      });
      logger.info('deleted a released volume', { volume: name, path: volume.spec.hostPath?.path });
      return;
    }
    const [namespace, name] = key.slice('claim:'.length).split('/') as [string, string];
    const claim = claims.get(namespace, name);
    if (!claim) return;
    const storageClass = classes.get(undefined, claimClass(claim));
    if (needsVolume(claim, storageClass, volumes.get(undefined, volumeNameFor(claim)))) await provision(claim, storageClass!);
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 500, maxMs: 60_000 } });
  const queueClaim = (c: PersistentVolumeClaim): void => loop.queue.add(`claim:${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`);
  await loop.start([
    source(ctx.informers.of<PersistentVolumeClaim>({ resource: 'persistentvolumeclaims' }), (e) => {
      claims.apply(e);
      if (e.type === 'ADDED' || e.type === 'MODIFIED') queueClaim(e.object);
    }),
    source(ctx.informers.of<PersistentVolume>({ resource: 'persistentvolumes' }), (e) => {
      volumes.apply(e);
      if (e.type === 'ADDED' || e.type === 'MODIFIED') loop.queue.add(`volume:${e.object.metadata.name ?? ''}`);
    }),
    source(ctx.informers.of<StorageClass>({ resource: 'storageclasses', group: STORAGE_GROUP }), (e) => {
      classes.apply(e);
      if (e.type !== 'SYNCED') for (const c of claims.all()) if (claimClass(c) === e.object.metadata.name) queueClaim(c);
    }),
  ]);
  return { close: () => loop.close() };
}
