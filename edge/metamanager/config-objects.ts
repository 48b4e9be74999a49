import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { LocalCache } from './local-cache.js';

/**
 * The ConfigMaps and Secrets the cloud sent along with the pods that reference them [SYNC-18]:
 * what the volume plugins and env resolution read, online or not. Entries are the cache's own
 * (frozen): read them, never change them.
 */

export function cachedConfigMap(cache: Pick<LocalCache, 'find'>, namespace: string | undefined, name: string): ConfigMap | undefined {
  const held = cache.find('ConfigMap', namespace, name);
  return held?.kind === 'ConfigMap' ? held.object : undefined;
}

export function cachedSecret(cache: Pick<LocalCache, 'find'>, namespace: string | undefined, name: string): Secret | undefined {
  const held = cache.find('Secret', namespace, name);
  return held?.kind === 'Secret' ? held.object : undefined;
}
