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

/** Reads ConfigMaps, Secrets, claims and volumes straight from what the local cache holds. */
export function cachedPodObjects(cache: Pick<LocalCache, 'objects'>): PodObjects {
  const find = <T>(kind: string, namespace: string | undefined, name: string): T | undefined => {
    const held = cache.objects().find((o) => o.kind === kind && o.name === name && (namespace === undefined || (o.namespace ?? 'default') === namespace));
    return held?.object as T | undefined;
  };
  return {
    configMap: (namespace, name) => find<ConfigMap>('ConfigMap', namespace, name),
    secret: (namespace, name) => find<Secret>('Secret', namespace, name),
    persistentVolumeClaim: (namespace, name) => find<BoundClaim>('PersistentVolumeClaim', namespace, name),
    persistentVolume: (name) => find<NodeLocalVolume>('PersistentVolume', undefined, name),
  };
}
