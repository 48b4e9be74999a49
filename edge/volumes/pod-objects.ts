import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { KubeObject } from '../../shared/types.js';
import type { LocalCache } from '../metamanager/local-cache.js';

/** The part of a PersistentVolumeClaim the edge reads: which volume it is bound to. */
export interface BoundClaim extends KubeObject {
  spec?: { volumeName?: string };
  status?: { phase?: string };
}

/** The part of a PersistentVolume the edge reads: where its data lives on the node. */
export interface NodeLocalVolume extends KubeObject {
  spec?: { hostPath?: { path: string; type?: string }; local?: { path: string } };
}

/**
 * The objects a pod's env and volumes refer to, as the edge holds them (kubelet's
 * configMapManager / secretManager). The PVC and PV readers are optional: an edge without them
 * cannot mount claims.
 */
export interface PodObjects {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  secret(namespace: string, name: string): Secret | undefined;
  persistentVolumeClaim?(namespace: string, name: string): BoundClaim | undefined;
  persistentVolume?(name: string): NodeLocalVolume | undefined;
}

/**
 * The ConfigMaps, Secrets, claims and volumes the local cache holds now, indexed once (edged
 * takes one such snapshot a sync: lookups stay cheap however many pods refer to objects).
 */
export function cachedPodObjects(cache: Pick<LocalCache, 'objects'>): PodObjects {
  const index = new Map<string, unknown>();
  for (const held of cache.objects()) {
    if (held.kind !== 'Pod') index.set(`${held.kind}/${held.namespace ?? held.object.metadata.namespace ?? ''}/${held.name}`, held.object);
  }
  const find = <T>(kind: string, namespace: string, name: string): T | undefined => index.get(`${kind}/${namespace}/${name}`) as T | undefined;
  return {
    configMap: (namespace, name) => find<ConfigMap>('ConfigMap', namespace, name),
    secret: (namespace, name) => find<Secret>('Secret', namespace, name),
    persistentVolumeClaim: (namespace, name) => find<BoundClaim>('PersistentVolumeClaim', namespace, name),
    persistentVolume: (name) => find<NodeLocalVolume>('PersistentVolume', '', name),
  };
}
