import { objectKey, type KubeObject } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { controllerRefOf } from './controller-ref.js';

/** An informer's objects by namespace and name, for the lookups a controller makes. */
export class ObjectCache<T extends KubeObject> {
  private readonly byNamespace = new Map<string, Map<string, T>>();

  apply(event: CacheEvent<T>): void {
    if (event.type === 'SYNCED') return;
    const { namespace = '', name = '', uid } = event.object.metadata;
    let names = this.byNamespace.get(namespace);
    if (event.type === 'DELETED') {
      if (names?.get(name)?.metadata.uid === uid) names!.delete(name);
      return;
    }
    if (!names) this.byNamespace.set(namespace, (names = new Map()));
    names.set(name, event.object);
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.byNamespace.get(namespace ?? '')?.get(name);
  }

  list(namespace: string | undefined): T[] {
    return [...(this.byNamespace.get(namespace ?? '')?.values() ?? [])];
  }

  *all(): Iterable<T> {
    for (const names of this.byNamespace.values()) yield* names.values();
  }

  get size(): number {
    let n = 0;
    for (const names of this.byNamespace.values()) n += names.size;
    return n;
  }
}

/** The newer of two copies of one object (resourceVersions are the store's revision); `a` when they are not the same object. */
export function newerCopy<T extends KubeObject>(a: T | undefined, b: T | undefined): T | undefined {
  if (!a || !b || a.metadata.uid !== b.metadata.uid) return a;
  return Number(b.metadata.resourceVersion) > Number(a.metadata.resourceVersion) ? b : a;
}

/** The key of the `kind` in `owners` that controls `obj` (by name, then same uid), if the cache holds it: one lookup, no walk. */
export function controllerKeyIn<T extends KubeObject>(owners: ObjectCache<T>, kind: string, obj: KubeObject | undefined): string | undefined {
  const ref = obj && controllerRefOf(obj);
  if (!ref || ref.kind !== kind) return undefined;
  const owner = owners.get(obj.metadata.namespace, ref.name);
  return owner && owner.metadata.uid === ref.uid ? objectKey(owner.metadata) : undefined;
}
