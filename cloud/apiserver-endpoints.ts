import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Timing } from '../shared/timing.js';
import type { ApiClient } from './client/client.js';
import { apiserverId, startEndpointReconciler, type EndpointReconciler, type MasterLeaseStore } from './apiserver/index.js';

/** Part of the cloud's composition root (main.ts): how this cloud lists itself in `default/kubernetes`. */

export interface ApiserverEndpointsDeps {
  api: ApiClient;
  /** The cloud's store, where its master lease is kept. */
  store: MasterLeaseStore;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  /** `<hostname>:<data dir>`: one Lease per cloud, the same across its restarts. */
  cloudIdentity: string;
  /** The IP other members reach this cloud at (--advertise-address, else nodeAddress). */
  advertiseAddress: string;
  /** The API's URL as it listens (its port is the secure port listed). */
  apiUrl: string;
}

/** Starts the lease endpoint reconciler for this cloud: its Lease `apiserver-<hash>` in kube-system, holder new at each start. */
export function startApiserverEndpoints(deps: ApiserverEndpointsDeps): Promise<EndpointReconciler> {
  const id = apiserverId(deps.cloudIdentity);
  const self = { id, holder: `${id}_${randomUUID()}`, hostname: hostname(), ip: deps.advertiseAddress, port: Number(new URL(deps.apiUrl).port) };
  return startEndpointReconciler({ api: deps.api, store: deps.store, clock: deps.clock, timing: deps.timing, logger: deps.logger.child('endpoint-reconciler'), self });
}
