import type { Endpoints, Service } from '../../../shared/service-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { ObjectCache } from '../object-cache.js';
import { applyEndpoints, currentEndpoints } from './apply.js';
import { managesEndpoints, planEndpoints } from './plan.js';
import { changes, serviceAndPodSources, type Change } from './service-sources.js';

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

  const onEndpoints = (event: Change<Endpoints>): void => {
    endpoints.apply(event);
    const { namespace = '', name = '' } = event.object.metadata;
    const service = services.get(namespace, name);
    if (service && managesEndpoints(service)) queue.add(objectKey(event.object.metadata));
  };

  await loop.start([
    ...serviceAndPodSources(ctx, { services, pods }, queue),
    source(ctx.informers.of<Endpoints>({ resource: 'endpoints' }), changes(onEndpoints)),
  ]);

  for (const ep of endpoints.all()) if (!ep.metadata.annotations?.[LEADER_ANNOTATION]) queue.add(objectKey(ep.metadata));
  return { close: () => loop.close() };
}

export const endpointsController: Controller = { name: 'endpoints', start: startEndpointsController };
