import { Aedes, type AedesOptions, type Client } from 'aedes';
import type { Observable } from 'rxjs';
import { realClock, type Clock } from '../../shared/clock.js';
import { Counters, refusals } from '../../shared/counters.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { listenForClients } from './broker-listener.js';
import { GuardedConnection, MAX_KEEPALIVE_SECONDS, type ConnectionLimits } from './connection-guard.js';
import { RateBudgets } from './rate-budgets.js';
import type { BrokerRole } from './acl.js';
import { closeRevokedNodes, DENIED, disconnectNodesWithoutCloud, gateNodes, topicAuthorizers } from './broker-hooks.js';
import { Admission, peerOf } from './broker-admission.js';
import { BrokerPersistence } from './broker-persistence.js';
import { cachedEmitter } from './topic-matching.js';

/**
 * The embedded MQTT broker (aedes 1.2, MQTT 3.1.1, in memory: BrokerPersistence, cachedEmitter). Every connection
 * authenticates as a node (username = node name) or as the cloud hub (`kedge-cloud`);
 * topic ACLs keep each node on its own topics (docs/protocol.md, "Topics").
 */
export type Authenticate = (username: string, password: string, peer: { address?: string }) => boolean | BrokerRole | Promise<boolean | BrokerRole>;

/** Counter names (see shared/counters.ts), and why a client was refused. */
export const REFUSED = 'kedge_broker_refused_total';
export { DENIED };
export const THROTTLED = 'kedge_broker_throttled_total';
export type RefusalReason =
  | 'bad-credentials' | 'client-id' | 'keepalive' | 'connect-timeout' | 'oversized-packet' | 'not-mqtt' | 'protocol-error' | 'tls-handshake' | 'revoked' | 'slow-client'
  | 'no-hub-yet' | 'auth-error' | 'nodes-not-admitted';

/**
 * Room for the largest object the API accepts (3 MiB) in an envelope; an edge starting 1,000
 * pods (about 3,000 messages) well within the burst. A whole CONNECT within 10 s of the
 * connection (as the TLS handshake); a keepalive of at most 10 minutes. 16 MiB queued for a
 * node that does not read: an edge reconnecting to 1,000 pods gets them in one burst of
 * about 2.5 MB (a pod is 2–3 KB in its envelope), and the largest message is 4 MiB; on top
 * of that the kernel's socket buffers (several MiB) hold what a reading client has not read
 * yet. Nothing bounds what waits for the hub (GuardedConnection.admitAsCloud says why).
 */
export const DEFAULT_LIMITS: ConnectionLimits = {
  maxPacketBytes: 4 * 1024 * 1024,
  publishesPerSecond: 2000,
  publishBurst: 10_000,
  connectTimeoutMs: 10_000,
  maxKeepaliveSeconds: MAX_KEEPALIVE_SECONDS,
  maxQueuedBytes: 16 * 1024 * 1024,
};

export interface BrokerOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  authenticate: Authenticate;
  logger: Logger;
  signal?: AbortSignal;
  /**
   * Refuse nodes (CONNACK 3, server unavailable) while no cloud client is subscribed to the
   * nodes' up topics, and disconnect them when the last one goes: every edge then says its
   * hello to a hub that hears it (after a restart of the broker or of the hub).
   */
  nodesWaitForCloud?: boolean;
  /** Serve MQTT over TLS (mqtts://) with this certificate. */
  tls?: { certPem: string; keyPem: string };
  /** Per-client limits (each defaults to DEFAULT_LIMITS'); the cloud hub has no rate limit and no queue bound. */
  limits?: Partial<ConnectionLimits>;
  /** Where refusals are counted (default: a private set). */
  counters?: Counters;
  /** For the rate limit's and the connect timeout's timers, and the sampling of log lines. */
  clock?: Clock;
  /** Nodes whose credential was revoked: their connections are closed. */
  revoked$?: Observable<string>;
  /**
   * Whether nodes are admitted (default: always). While false, a node's CONNECT is refused with
   * CONNACK 3 (server unavailable), counted as nodes-not-admitted; when it turns false, every
   * node connection is closed. The cloud hub's own client is never refused.
   */
  nodesAdmitted$?: Observable<boolean>;
  /**
   * With `nodesWaitForCloud`: while this says true, the nodes stay connected when the cloud hub
   * leaves (the cloud's next hub resumes them from their retained presence); default never.
   */
  keepNodesWithoutCloud?: () => boolean;
  /** One member of a cluster: sessions, retained messages and routing shared (default: in memory, alone). */
  shared?: SharedBrokerState;
}

/** State shared with other members of a cluster (cloud/broker-member/): aedes' persistence and emitter, and what each member does with them. */
export interface SharedBrokerState {
  readonly aedes: Pick<AedesOptions, 'persistence' | 'mq' | 'id' | 'heartbeatInterval'>;
  /** Once, on the member's aedes instance. */
  attach(broker: Aedes): void;
  /** Each client, as aedes makes it for a new connection (before its CONNECT is read). */
  onClient(client: Client): void;
  /** After aedes closed, or failed to start: what the state holds open (Redis connections). */
  close(): Promise<void>;
}

export interface BrokerHandle {
  /** e.g. mqtt://127.0.0.1:1883, or mqtts:// with TLS */
  readonly url: string;
  readonly port: number;
  /** Disconnects every client, closes every socket and the listener. Idempotent. */
  close(): Promise<void>;
}

export async function startBroker(options: BrokerOptions): Promise<BrokerHandle> {
  const { host = '127.0.0.1', port, authenticate, logger, signal } = options;
  const counters = options.counters ?? new Counters();
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const waitForCloud = options.nodesWaitForCloud === true;
  const clock = options.clock ?? realClock;
  const refuse: (reason: RefusalReason, message: string, details: Record<string, unknown>) => void = refusals(counters, REFUSED, logger, 'broker refused a client', { clock });
  const budgets = new RateBudgets(limits.publishesPerSecond, limits.publishBurst, clock);
  let nodesAdmitted = true;
  const admission = new Admission({
    nodesAdmitted: () => nodesAdmitted,
    authenticate,
    maxKeepaliveSeconds: limits.maxKeepaliveSeconds,
    waitForCloud,
    refuse,
    admitted: (client, who) => {
      const conn = client.conn as Partial<GuardedConnection>;
      if (who.role === 'cloud') conn.admitAsCloud?.();
      else conn.admitWith?.(budgets.acquire(`node/${who.node}`));
    },
  });

  const shared = options.shared;
  const broker = await Aedes.createBroker({ ...(shared?.aedes ?? { persistence: new BrokerPersistence(), mq: cachedEmitter() }), preConnect: admission.preConnect, authenticate: admission.authenticate, ...topicAuthorizers(admission, counters, clock, logger) }).catch(async (err: unknown) => {
    await shared?.close();
    throw err;
  });
  shared?.attach(broker);
  disconnectNodesWithoutCloud(broker, admission, waitForCloud, logger, options.keepNodesWithoutCloud);
  // Each refused CONNECT also ends in a client error: sampled, so a flood of them costs a few lines.
  const clientErrorLog = new LogSampler(clock);
  broker.on('clientError', (client, err) => {
    const unlogged = clientErrorLog.sample('client-error');
    if (unlogged !== undefined) logger.warn('broker client error', { clientId: client.id, error: err.message, ...unloggedFields(unlogged) });
  });
  broker.on('connectionError', (client, err) => refuse('protocol-error', err.message, { peer: peerOf(client) }));

  const stopRevocations = closeRevokedNodes(options.revoked$, admission, refuse);
  const stopGate = gateNodes(options.nodesAdmitted$, admission, logger, (admitted) => (nodesAdmitted = admitted));

  // aedes runs timers from its creation: a broker that cannot listen stops them, or the process never exits.
  const closeBroker = async (): Promise<void> => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await shared?.close();
  };
  const listener = await listenForClients({
    host,
    port,
    tls: options.tls,
    onConnection: (socket) => {
      const client = broker.handle(
        new GuardedConnection(socket, limits, clock, {
          refused: (reason, detail) => refuse(reason, detail, { peer: socket.remoteAddress }),
          throttled: () => {
            counters.add(THROTTLED);
            logger.warn('broker is slowing a client down: over its message rate', { peer: socket.remoteAddress, perSecond: limits.publishesPerSecond });
          },
        }, budgets),
      );
      shared?.onClient(client);
    },
    onHandshakeFailed: (err, peer) => refuse('tls-handshake', err.message, { peer: peer ?? 'gone before the handshake failed' }),
  }).catch(async (err: unknown) => {
    stopRevocations();
    stopGate();
    await closeBroker();
    throw err;
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      stopRevocations();
      stopGate();
      await closeBroker();
      await listener.close();
      logger.info('broker stopped', { port: listener.port });
    })());
  const onAbort = (): void => void close();
  if (signal?.aborted) await close();
  else signal?.addEventListener('abort', onAbort, { once: true });

  logger.info('broker listening', { host, port: listener.port, tls: Boolean(options.tls) });
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { url: `${options.tls ? 'mqtts' : 'mqtt'}://${reachable}:${listener.port}`, port: listener.port, close };
}
