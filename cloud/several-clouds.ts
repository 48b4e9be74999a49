import { CLOUD_USER, clusterResources, createApiServer, newToken, type ApiClient } from './apiserver/index.js';
import { peerBrokerUrls } from './control-plane-node/index.js';
import { brokerUrlAsSeenFrom } from './network.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Store } from './store/store.js';

/** Part of the cloud's composition root (main.ts): what lets several clouds share one store. */

/** Every broker URL of a (comma-separated) list as an edge that reached the API under `host` should use. */
export const brokerUrlsAsSeenFrom = (urls: string, host: string | undefined): string => urls.split(',').map((url) => brokerUrlAsSeenFrom(url, host)).join(',');

/** What a join answers: this cloud's broker first, then the other clouds' (from their node Leases), each once. */
export async function joinBrokerList(own: string, host: string | undefined, api: ApiClient, cloudIdentity: string): Promise<string> {
  const urls = [...brokerUrlsAsSeenFrom(own, host).split(','), ...(await peerBrokerUrls(api, cloudIdentity)).flatMap((u) => u.split(','))];
  return [...new Set(urls)].join(',');
}

/** A client of the store with the cloud's rights, for what comes before its own credentials are known. */
export function storeClient(store: Store, clock: Clock, logger: Logger): ApiClient {
  const token = newToken();
  const tokens = [{ token, user: CLOUD_USER, role: 'admin', groups: ['system:masters'] }];
  return createApiServer({ store, clock, logger: logger.child('apiserver'), tokens, resources: clusterResources }).loopback(token);
}

/** A store this cloud uses but does not own: closing it is its owner's business. */
export function borrowed(store: Store): Store {
  const keepOpen = async (): Promise<void> => {};
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'close') return keepOpen;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
