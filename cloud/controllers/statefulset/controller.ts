import type { ControllerRevision } from '../../../shared/daemonset-types.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import type { StatefulSet } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import { objectKey, type KubeObject, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { controllerRefOf } from '../controller-ref.js';
import { controllerKeyIn, ObjectCache } from '../object-cache.js';
import { splitKey } from '../replicaset/controller.js';
import { applyStatefulSetActions } from './apply.js';
import { planStatefulSet } from './plan.js';

/** Pods with stable names and claims for every StatefulSet (kube's StatefulSetController). */
export function statefulSetController(): Controller {
  return { name: 'statefulset', start: startStatefulSetController };
}

async function startStatefulSetController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('statefulset-controller');
  const sets = new ObjectCache<StatefulSet>();
  const pods = new ObjectCache<Pod>();
  const revisions = new ObjectCache<ControllerRevision>();
  const claims = new ObjectCache<PersistentVolumeClaim>();

  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const sts = sets.get(namespace, name);
    if (!sts) return;
    const input = { sts, pods: pods.list(namespace), revisions: revisions.list(namespace), claims: claims.list(namespace), now: clock.now(), timing };
    await applyStatefulSetActions({ api, events, requeueAfter: (k, ms) => loop.addAfter(k, ms) }, sts, planStatefulSet(input));
  };
  const loop = new ControllerLoop({ clock, logger, reconcile });
  const addIn = (namespace: string | undefined, which: (sts: StatefulSet) => boolean): void => {
    for (const sts of sets.list(namespace)) if (which(sts)) loop.queue.add(objectKey(sts.metadata));
  };

  const add = (key: string | undefined): void => void (key !== undefined && loop.queue.add(key));
  /** A pod or revision wakes the set controlling it (now or before); an orphan wakes every set selecting it (it may be adopted). */
  const onOwned = (e: CacheEvent<KubeObject>): void => {
    if (e.type === 'SYNCED') return;
    const old = e.type === 'MODIFIED' ? e.old : undefined;
    if (controllerRefOf(e.object) || (old && controllerRefOf(old))) {
      const key = controllerKeyIn(sets, 'StatefulSet', e.object);
      const oldKey = controllerKeyIn(sets, 'StatefulSet', old);
      add(key);
      if (oldKey !== key) add(oldKey);
    } else if (e.type !== 'DELETED') {
      addIn(e.object.metadata.namespace, (sts) => selectorMatches(sts.spec.selector, e.object.metadata.labels));
    }
  };

  await loop.start([
    source(ctx.informers.of<StatefulSet>({ resource: 'statefulsets', group: 'apps' }), (e) => {
      sets.apply(e);
      if (e.type !== 'SYNCED') loop.queue.add(objectKey(e.object.metadata));
    }),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), (e) => {
      pods.apply(e);
      onOwned(e);
    }),
    source(ctx.informers.of<ControllerRevision>({ resource: 'controllerrevisions', group: 'apps' }), (e) => {
      revisions.apply(e);
      onOwned(e);
    }),
    // A claim appearing or going away may unblock an ordinal; claims name no controller, so every set of the namespace looks.
    source(ctx.informers.of<PersistentVolumeClaim>({ resource: 'persistentvolumeclaims' }), (e) => {
      claims.apply(e);
      if (e.type === 'ADDED' || e.type === 'DELETED') addIn(e.object.metadata.namespace, () => true);
    }),
  ]);
  return { close: () => loop.close() };
}
