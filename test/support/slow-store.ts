import { realClock } from '../../shared/clock.js';
import type { Store } from '../../cloud/store/store.js';

const ROUND_TRIPS = new Set(['get', 'list', 'create', 'update', 'delete']);

/** `store` with each read and write taking `ms` of real time first, as a round trip to etcd does. */
export function withLatency(store: Store, ms: number): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !ROUND_TRIPS.has(prop) || typeof value !== 'function') {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (...args: unknown[]) => {
        await realClock.sleep(ms);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}
