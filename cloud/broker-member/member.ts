import type { Logger } from '../../shared/log.js';
import { startBroker, type BrokerHandle } from '../hub/broker.js';
import { passwordFileAccess } from './password-file.js';
import { sharedRedisState } from './shared-state.js';

export interface BrokerMemberOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** redis://[:password@]host[:port][/db], shared by every member. */
  redisUrl: string;
  /** The password file `kedge broker-config mosquitto` writes. */
  passwordFile: string;
  tls?: { certPem: string; keyPem: string };
  logger: Logger;
  signal?: AbortSignal;
  /** How often members tell each other they live (aedes' heartbeat; default 60 s). */
  heartbeatMs?: number;
}

/**
 * One member of a broker cluster (`kedge broker`): the embedded broker's admission, ACL and
 * limits, with sessions, QoS 1 inflight, retained presence and routing shared through Redis.
 * Nodes are admitted whether or not a hub is connected to this member (the hub may be on
 * another one); the hub finds nodes online before it from their retained presence.
 */
export async function startBrokerMember(options: BrokerMemberOptions): Promise<BrokerHandle> {
  const { logger } = options;
  const access = await passwordFileAccess(options.passwordFile, logger);
  return startBroker({
    host: options.host,
    port: options.port,
    authenticate: access.authenticate,
    revoked$: access.revoked$,
    logger,
    nodesWaitForCloud: false,
    shared: sharedRedisState(options.redisUrl, logger, options.heartbeatMs),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
