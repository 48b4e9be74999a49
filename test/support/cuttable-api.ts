import type { ApiClient } from '../../cloud/client/client.js';
import { KedgeError } from '../../shared/errors.js';

export interface CuttableApi {
  api: ApiClient;
  /** From now on every call fails with 503, as from a cloud cut off from the store. */
  cut(): void;
  /** From now on every call hangs, never answering, as over a link that drops packets silently. */
  hang(): void;
  heal(): void;
}

/** One candidate's own view of a shared API, whose link can be cut and healed. */
export function cuttableApi(inner: ApiClient): CuttableApi {
  let cut: 'no' | 'fail' | 'hang' = 'no';
  const api = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (cut === 'fail') return Promise.reject(new KedgeError('Unavailable', 'the API is unreachable'));
        if (cut === 'hang') return new Promise(() => {});
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { api, cut: () => void (cut = 'fail'), hang: () => void (cut = 'hang'), heal: () => void (cut = 'no') };
}
