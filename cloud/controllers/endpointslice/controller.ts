import { MANAGED_BY_LABEL, ENDPOINTSLICE_CONTROLLER_NAME, SERVICE_NAME_LABEL, DISCOVERY_GROUP, type EndpointSlice } from '../../../shared/cluster-object-types.js';
import type { Service } from '../../../shared/service-types.js';
import { scaledMs } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { changes, serviceAndPodSources, type Change } from '../endpoints/service-sources.js';
import { ObjectCache } from '../object-cache.js';
import { applySlices, currentSlices } from './apply.js';
import { planSlices } from './plan.js';

/** The Service a slice this controller manages belongs to ("namespace/name"), or undefined. */
function serviceKeyOf(slice: EndpointSlice): string | undefined {
  const labels = slice.metadata.labels ?? {};
  if (labels[MANAGED_BY_LABEL] !== ENDPOINTSLICE_CONTROLLER_NAME || !labels[SERVICE_NAME_LABEL]) return undefined;
  return `${slice.metadata.namespace ?? ''}/${labels[SERVICE_NAME_LABEL]}`;
}

/**
 * Kubernetes' endpointslice controller: Service keys are the queue keys, as for Endpoints. A
 * Service change queues its key; a pod change the Services selecting it before or after; a
 * change to one of its slices (edited or deleted by someone else) its Service, so it is put
 * back. Once the caches are filled every managed slice's Service is queued once, so the slices
 * of Services deleted meanwhile go too. Each pass reads the slices from the API, plans, applies.
 */
async function startEndpointSliceController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('endpointslice');
  const services = new ObjectCache<Service>();
  const pods = new ObjectCache<Pod>();
  const slices = new ObjectCache<EndpointSlice>();

  const reconcile = async (key: string): Promise<void> => {
    const [namespace = '', name = ''] = key.split('/');
    const service = services.get(namespace, name);
    const actions = planSlices(service, service ? pods.list(namespace) : [], await currentSlices(api, namespace, name));
    await applySlices({ api, events, logger }, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: scaledMs(timing, 1), maxMs: scaledMs(timing, 100) } });
  const queue = loop.queue;

  const onSlice = (event: Change<EndpointSlice>): void => {
    slices.apply(event);
    const key = serviceKeyOf(event.object);
    if (key) queue.add(key);
  };
  await loop.start([
    ...serviceAndPodSources(ctx, { services, pods }, queue),
    source(ctx.informers.of<EndpointSlice>({ resource: 'endpointslices', group: DISCOVERY_GROUP }), changes(onSlice)),
  ]);
  for (const slice of slices.all()) {
    const key = serviceKeyOf(slice);
    if (key) queue.add(key);
  }
  return { close: () => loop.close() };
}

export const endpointSliceController: Controller = { name: 'endpointslice', start: startEndpointSliceController };
