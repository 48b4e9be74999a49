import type { Store } from '../../cloud/store/store.js';

type WriteMethod = 'create' | 'update' | 'delete';
const WRITES: ReadonlySet<string | symbol> = new Set<WriteMethod>(['create', 'update', 'delete']);

/** The store with `before` called ahead of each write (create, update, delete) of a key: to count writes, or to refuse one by throwing. */
export function beforeStoreWrites(store: Store, before: (method: WriteMethod, key: string) => void): Store {
  return new Proxy(store, {
    get: (target, name) => {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (!WRITES.has(name)) return method;
      return async (key: string, ...rest: unknown[]) => {
        before(name as WriteMethod, key);
        return method(key, ...rest);
      };
    },
  });
}
