import type { Service } from '../../../shared/service-types.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { ControllerContext } from '../controller.js';
import { source, type Source } from '../controller-loop.js';
import type { ObjectCache } from '../object-cache.js';
import { servicesToUpdate } from './memberships.js';

export type Change<T> = Exclude<CacheEvent<T>, { type: 'SYNCED' }>;

/** A handler of the changes of a cache's events, SYNCED left out. */
export const changes = <T>(handle: (event: Change<T>) => void) => (event: CacheEvent<T>): void => {
  if (event.type !== 'SYNCED') handle(event);
};

/**
 * The Service and pod sources of a controller keyed by Service (Endpoints, EndpointSlices): a
 * Service change queues its key; a pod change the Services selecting it before or after.
 */
export function serviceAndPodSources(ctx: ControllerContext, caches: { services: ObjectCache<Service>; pods: ObjectCache<Pod> }, queue: { add(key: string): void }): Source[] {
  const { services, pods } = caches;
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
  return [source(ctx.informers.of<Service>({ resource: 'services' }), changes(onService)), source(ctx.informers.of<Pod>({ resource: 'pods' }), changes(onPod))];
}
