import type { ApiClient } from '../../cloud/client/client.js';
import type { Store } from '../../cloud/store/store.js';
import { KedgeError } from '../../shared/errors.js';

export interface CuttableApi {
  api: ApiClient;
  /** The store given, behind the same link (a cloud's own store access). */
  store?: Store;
  /** From now on every call fails with 503, as from a cloud cut off from the store. */
  cut(): void;
  /** From now on every call hangs, never answering, as over a link that drops packets silently. */
  hang(): void;
  heal(): void;
}

/** One candidate's own view of a shared API (and, when given, of the shared store), whose link can be cut and healed. */
export function cuttableApi(inner: ApiClient, innerStore?: Store): CuttableApi {
  let cut: 'no' | 'fail' | 'hang' = 'no';
  const behindLink = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const value = Reflect.get(t, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (cut === 'fail') return Promise.reject(new KedgeError('Unavailable', 'the API is unreachable'));
          if (cut === 'hang') return new Promise(() => {});
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return { api: behindLink(inner), ...(innerStore && { store: behindLink(innerStore) }), cut: () => void (cut = 'fail'), hang: () => void (cut = 'hang'), heal: () => void (cut = 'no') };
}
