import type { KubeObject } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';

/**
 * An informer's objects by namespace and name. Keyed by uid underneath in the informer, so a
 * delete only removes the object it names (a pod recreated under the same name stays).
 */
export class NamespacedCache<T extends KubeObject> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  /** Applies one informer event; returns the object before it (undefined if new). */
  apply(event: Exclude<CacheEvent<T>, { type: 'SYNCED' }>): T | undefined {
    const { namespace = '', name = '', uid } = event.object.metadata;
    const names = this.byNamespace.get(namespace) ?? new Map<string, T>();
    this.byNamespace.set(namespace, names);
    const before = names.get(name);
    if (event.type !== 'DELETED') names.set(name, event.object);
    else if (before?.metadata.uid === uid) names.delete(name);
    if (names.size === 0) this.byNamespace.delete(namespace);
    return before;
  }

  get(namespace: string, name: string): T | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  in(namespace: string): Iterable<T> {
    return this.byNamespace.get(namespace)?.values() ?? [];
  }

  *all(): Iterable<T> {
    for (const names of this.byNamespace.values()) yield* names.values();
  }
}
