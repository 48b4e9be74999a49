import type { LocalCache } from '../../metamanager/local-cache.js';

/**
 * The node's podCIDR as the edge knows it: its own cached Node's `spec.podCIDR` (the cloud's
 * node IPAM assigns it); else `fallback`, as the kubelet's --pod-cidr for a cloud that assigns none.
 */
export function cachedPodCIDR(cache: Pick<LocalCache, 'find'>, nodeName: string, fallback?: string): () => string | undefined {
  return () => {
    const held = cache.find('Node', undefined, nodeName);
    return (held?.kind === 'Node' ? held.object.spec?.podCIDR : undefined) || fallback;
  };
}
