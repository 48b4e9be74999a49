import type { Service } from '../../../shared/service-types.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import { managesEndpoints, selects } from './plan.js';
import { isPodReady } from './subsets.js';

/**
 * Which Services to re-plan when a pod changes (GetServicesToUpdateOnPodChange): those
 * whose selector picks the pod before or after, and only when something an Endpoints
 * shows changed. Pure. `services` are the Services of the pod's namespace.
 */
export function servicesToUpdate(services: Iterable<Service>, old: Pod | undefined, pod: Pod | undefined): string[] {
  if (old && pod && endpointsView(old) === endpointsView(pod)) return [];
  const keys = new Set<string>();
  for (const service of services) {
    if (!managesEndpoints(service)) continue;
    if ((old && selects(service, old)) || (pod && selects(service, pod))) keys.add(objectKey(service.metadata));
  }
  return [...keys];
}

/** The parts of a pod that membership or an Endpoints address depend on. */
function endpointsView(pod: Pod): string {
  const { labels, deletionTimestamp } = pod.metadata;
  const { podIP, podIPs, phase } = pod.status ?? {};
  const { nodeName, hostname, subdomain } = pod.spec;
  return JSON.stringify([labels, deletionTimestamp, podIP, podIPs, phase, isPodReady(pod), nodeName, hostname, subdomain]);
}
