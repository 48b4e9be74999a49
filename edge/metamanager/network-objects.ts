import type { Endpoints, Service } from '../../shared/service-types.js';
import type { Node } from '../../shared/types.js';
import type { LocalCache } from './local-cache.js';

/*
 * [SYNC-19] What kube-proxy and the network plugin read of the local cache, online or not: the
 * Services and Endpoints the cloud sent this node, and its own Node (its spec.podCIDR). Entries
 * are the cache's own (frozen): read them, never change them.
 */

/** Every Service the node holds. */
export function cachedServices(cache: Pick<LocalCache, 'objects'>): Service[] {
  return cache.objects().flatMap((o) => (o.kind === 'Service' ? [o.object] : []));
}

/** Every Endpoints the node holds. */
export function cachedEndpoints(cache: Pick<LocalCache, 'objects'>): Endpoints[] {
  return cache.objects().flatMap((o) => (o.kind === 'Endpoints' ? [o.object] : []));
}

/** The node's own Node as the cloud last sent it (name, uid, labels, spec); undefined until it came. */
export function ownNode(cache: Pick<LocalCache, 'find'>, nodeName: string): Node | undefined {
  const held = cache.find('Node', undefined, nodeName);
  return held?.kind === 'Node' ? held.object : undefined;
}
