import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { CachedObject, LocalCache } from '../metamanager/local-cache.js';

/**
 * The objects a pod's env and volumes refer to, as the edge holds them (kubelet's
 * configMapManager / secretManager). The PVC and PV readers are optional: an edge without them
 * cannot mount claims.
 */
export interface PodObjects {
  configMap(namespace: string, name: string): ConfigMap | undefined;
  secret(namespace: string, name: string): Secret | undefined;
  persistentVolumeClaim?(namespace: string, name: string): PersistentVolumeClaim | undefined;
  persistentVolume?(name: string): PersistentVolume | undefined;
}

/** The object of `kind` the cache holds under this name, if any (a lookup by name: O(1)). */
function held<T>(cache: Pick<LocalCache, 'find'>, kind: CachedObject['kind'], namespace: string | undefined, name: string): T | undefined {
  const entry = cache.find(kind, namespace, name);
  return entry?.kind === kind ? (entry.object as T) : undefined;
}

/**
 * The ConfigMaps, Secrets, claims and volumes the cloud sent with the pods that reference them
 * [SYNC-18], as the local cache holds them now, online or not: each read is one lookup by name.
 * Entries are the cache's own (frozen): read them, never change them.
 */
export function cachedPodObjects(cache: Pick<LocalCache, 'find'>): PodObjects {
  return {
    configMap: (namespace, name) => held<ConfigMap>(cache, 'ConfigMap', namespace, name),
    secret: (namespace, name) => held<Secret>(cache, 'Secret', namespace, name),
    persistentVolumeClaim: (namespace, name) => held<PersistentVolumeClaim>(cache, 'PersistentVolumeClaim', namespace, name),
    persistentVolume: (name) => held<PersistentVolume>(cache, 'PersistentVolume', undefined, name),
  };
}
