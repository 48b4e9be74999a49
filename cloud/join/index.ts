import type { Clock } from '../../shared/clock.js';
import type { Counters } from '../../shared/counters.js';
import type { Logger } from '../../shared/log.js';
import type { ApiClient } from '../client/client.js';
import type { Informers } from '../informer/shared-informers.js';
import { joinHandler, type JoinHandler } from './join-service.js';
import { NodeCredentials } from './node-credentials.js';

export { CA_PATH, JOIN_MAX_BODY_BYTES, JOIN_PATH, JOIN_REFUSED, joinBodyLimit, type JoinAnswer, type JoinHandler } from './join-service.js';
export { NodeCredentials } from './node-credentials.js';

export interface JoiningDeps {
  api: ApiClient;
  informers: Informers;
  clock: Clock;
  logger: Logger;
  counters: Counters;
  caPem: string;
  brokerUrlFor(host: string | undefined): string | Promise<string>;
  reservedNode?: string;
}

/** Edges joining with tokens: the join paths, and the credentials they hand out as the broker checks them. */
export function startJoining(deps: JoiningDeps): { handler: JoinHandler; credentials: NodeCredentials; close(): void } {
  const credentials = new NodeCredentials({ api: deps.api, informers: deps.informers, logger: deps.logger });
  credentials.start();
  return { handler: joinHandler(deps), credentials, close: () => credentials.close() };
}
