import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { POLICY_GROUP, type PodDisruptionBudget } from '../../../shared/cluster-object-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import type { StatefulSet } from '../../../shared/statefulset-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type KubeObject, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { ObjectCache } from '../object-cache.js';
import { controllerFinder } from './finders.js';
import { planBudgetStatus } from './plan.js';

/** How long an eviction's disruptedPods entry waits for its pod to go (kube's DeletionTimeout, 2 minutes). */
export const DELETION_TIMEOUT_S = 120;

/**
 * Kubernetes' disruption controller: PodDisruptionBudget keys are the queue keys. A budget
 * change queues it; a pod change the budgets selecting it before or after; a ReplicaSet,
 * Deployment or StatefulSet change (their scale) every budget of its namespace. Each pass
 * plans the status purely from the caches and writes it (compare-and-set) when it differs;
 * a budget with an eviction waiting is looked at again when that entry expires.
 */
async function startDisruptionController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing } = ctx;
  const logger = ctx.logger.child('disruption');
  const budgets = new ObjectCache<PodDisruptionBudget>();
  const pods = new ObjectCache<Pod>();
  const caches = { replicaSets: new ObjectCache<ReplicaSet>(), deployments: new ObjectCache<Deployment>(), statefulSets: new ObjectCache<StatefulSet>() };
  const controllerOf = controllerFinder(caches);
  const timeoutMs = scaledMs(timing, DELETION_TIMEOUT_S);

  const reconcile = async (key: string): Promise<void> => {
    const [namespace = '', name = ''] = key.split('/');
    const pdb = budgets.get(namespace, name);
    if (!pdb) return;
    const selected = pods.list(namespace).filter((pod) => selectorMatches(pdb.spec?.selector, pod.metadata.labels));
    const plan = planBudgetStatus(pdb, selected, controllerOf, clock.now(), timeoutMs);
    if (plan.recheckAt !== undefined) loop.addAfter(key, Math.max(0, plan.recheckAt - clock.now()));
    if (!plan.status) return;
    try {
      await api.replace<PodDisruptionBudget>({ resource: 'poddisruptionbudgets', group: POLICY_GROUP, namespace, name, subresource: 'status' }, { ...pdb, status: plan.status });
    } catch (err) {
      if (!isKedgeError(err, 'NotFound')) throw err; // gone: nothing to write; a Conflict is retried
    }
  };
  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: scaledMs(timing, 1), maxMs: scaledMs(timing, 100) } });

  const budgetsSelecting = (...selected: (Pod | undefined)[]): void => {
    for (const pod of selected) {
      if (!pod) continue;
      for (const pdb of budgets.list(pod.metadata.namespace)) if (selectorMatches(pdb.spec?.selector, pod.metadata.labels)) loop.queue.add(objectKey(pdb.metadata));
    }
  };
  const onBudget = (event: CacheEvent<PodDisruptionBudget>): void => {
    budgets.apply(event);
    if (event.type !== 'SYNCED') loop.queue.add(objectKey(event.object.metadata));
  };
  const onPod = (event: CacheEvent<Pod>): void => {
    pods.apply(event);
    if (event.type !== 'SYNCED') budgetsSelecting(event.object, event.type === 'MODIFIED' ? event.old : undefined);
  };
  const onWorkload = <T extends KubeObject>(cache: ObjectCache<T>) => (event: CacheEvent<T>): void => {
    cache.apply(event);
    if (event.type === 'SYNCED') return;
    for (const pdb of budgets.list(event.object.metadata.namespace)) loop.queue.add(objectKey(pdb.metadata));
  };
  await loop.start([
    source(ctx.informers.of<PodDisruptionBudget>({ resource: 'poddisruptionbudgets', group: POLICY_GROUP }), onBudget),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod),
    source(ctx.informers.of<ReplicaSet>({ resource: 'replicasets', group: 'apps' }), onWorkload(caches.replicaSets)),
    source(ctx.informers.of<Deployment>({ resource: 'deployments', group: 'apps' }), onWorkload(caches.deployments)),
    source(ctx.informers.of<StatefulSet>({ resource: 'statefulsets', group: 'apps' }), onWorkload(caches.statefulSets)),
  ]);
  return { close: () => loop.close() };
}

export const disruptionController: Controller = { name: 'disruption', start: startDisruptionController };
