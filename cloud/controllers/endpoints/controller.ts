import type { Endpoints, Service } from '../../../shared/service-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { ObjectCache } from '../object-cache.js';
import { applyEndpoints, currentEndpoints } from './apply.js';
import { servicesToUpdate } from './memberships.js';
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
  const services = new ObjectCache<Service>();
  const pods = new ObjectCache<Pod>();
  const endpoints = new ObjectCache<Endpoints>();

  const reconcile = async (key: string): Promise<void> => {
    const [namespace = '', name = ''] = key.split('/');
    const service = services.get(namespace, name);
    const current = await currentEndpoints(api, { namespace, name });
    const actions = planEndpoints({ namespace, name }, service, service ? pods.list(namespace) : [], current);
    await applyEndpoints({ api, events, logger }, actions);
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: scaledMs(timing, 1), maxMs: scaledMs(timing, 100) } });
  const queue = loop.queue;

  const onService = (event: Change<Service>): void => {
    services.apply(event);
    queue.add(objectKey(event.object.metadata));
  };
  const onPod = (event: Change<Pod>): void => {
    pods.apply(event);
    const old = event.type === 'MODIFIED' ? event.old : event.type === 'DELETED' ? event.object : undefined;
    const now = event.type === 'DELETED' ? undefined : event.object;
    for (const key of servicesToUpdate(services.list(event.object.metadata.namespace), old, now)) queue.add(key);
  };
  const onEndpoints = (event: Change<Endpoints>): void => {
    endpoints.apply(event);
    const { namespace = '', name = '' } = event.object.metadata;
    const service = services.get(namespace, name);
    if (service && managesEndpoints(service)) queue.add(objectKey(event.object.metadata));
  };

  const changes = <T>(handle: (event: Change<T>) => void) => (event: CacheEvent<T>): void => {
    if (event.type !== 'SYNCED') handle(event);
  };
  await loop.start([
    source(ctx.informers.of<Service>({ resource: 'services' }), changes(onService)),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), changes(onPod)),
    source(ctx.informers.of<Endpoints>({ resource: 'endpoints' }), changes(onEndpoints)),
  ]);

  for (const ep of endpoints.all()) if (!ep.metadata.annotations?.[LEADER_ANNOTATION]) queue.add(objectKey(ep.metadata));
  return { close: () => loop.close() };
}

type Change<T> = Exclude<CacheEvent<T>, { type: 'SYNCED' }>;

export const endpointsController: Controller = { name: 'endpoints', start: startEndpointsController };
