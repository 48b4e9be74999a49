import type { Subscription } from 'rxjs';
import type { Endpoints, Service } from '../../../shared/service-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type KubeObject, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import { KeyQueue } from '../../informer/key-queue.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { runWorkers } from '../workers.js';
import { applyEndpoints, currentEndpoints } from './apply.js';
import { servicesToUpdate } from './memberships.js';
import { NamespacedCache } from './namespaced-cache.js';
import { managesEndpoints, planEndpoints } from './plan.js';

/** Endpoints kept by leader election, never another component's to clean up (as kube skips them). */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

/**
 * Kubernetes' endpoints controller: Service keys ("namespace/name") are the queue keys. A
 * Service change queues its key; a pod change queues the Services selecting it before or
 * after; a deleted or edited Endpoints queues its Service's key so it is put back. Once the
 * caches are filled, every Endpoints is queued once, so those of Services deleted while the
 * controller was down go too. Each pass reads the Endpoints from the API, plans, applies.
 */
async function startEndpointsController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('endpoints');
  const queue = new KeyQueue(clock, { minMs: scaledMs(timing, 1), maxMs: scaledMs(timing, 100) });
  const services = new NamespacedCache<Service>();
  const pods = new NamespacedCache<Pod>();
  const endpoints = new NamespacedCache<Endpoints>();

  const onService = (event: Change<Service>): void => {
    services.apply(event);
    queue.add(objectKey(event.object.metadata));
  };
  const onPod = (event: Change<Pod>): void => {
    pods.apply(event);
    const old = event.type === 'MODIFIED' ? event.old : event.type === 'DELETED' ? event.object : undefined;
    const now = event.type === 'DELETED' ? undefined : event.object;
    for (const key of servicesToUpdate(services.in(event.object.metadata.namespace ?? ''), old, now)) queue.add(key);
  };
  const onEndpoints = (event: Change<Endpoints>): void => {
    endpoints.apply(event);
    const { namespace = '', name = '' } = event.object.metadata;
    const service = services.get(namespace, name);
    if (service && managesEndpoints(service)) queue.add(objectKey(event.object.metadata));
  };

  const reconcile = async (key: string): Promise<void> => {
    const [namespace = '', name = ''] = key.split('/');
    const service = services.get(namespace, name);
    const current = await currentEndpoints(api, { namespace, name });
    const actions = planEndpoints({ namespace, name }, service, service ? [...pods.in(namespace)] : [], current);
    await applyEndpoints({ api, events, logger }, actions);
  };

  const synced = new Set<string>();
  let allSynced!: () => void;
  const ready = new Promise<void>((resolve) => (allSynced = resolve));
  const follow = <T extends KubeObject>(resource: string, handle: (event: Change<T>) => void): Subscription =>
    ctx.informers.of<T>({ resource }).subscribe((event) => {
      if (event.type !== 'SYNCED') handle(event);
      else if (synced.add(resource).size === 3) allSynced();
    });
  const subscriptions = [follow('services', onService), follow('pods', onPod), follow('endpoints', onEndpoints)];
  await ready;

  for (const ep of endpoints.all()) if (!ep.metadata.annotations?.[LEADER_ANNOTATION]) queue.add(objectKey(ep.metadata));
  const workers = runWorkers({ queue, reconcile, logger });
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        for (const s of subscriptions) s.unsubscribe();
        queue.close();
        await workers;
      })()),
  };
}

type Change<T> = Exclude<CacheEvent<T>, { type: 'SYNCED' }>;

export const endpointsController: Controller = { name: 'endpoints', start: startEndpointsController };
