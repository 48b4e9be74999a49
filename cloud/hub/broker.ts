import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { Logger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { identify, mayPublish, maySubscribe, type BrokerIdentity, type BrokerRole } from './acl.js';

/**
 * The embedded MQTT broker (aedes 1.2, MQTT 3.1.1, in-memory). Every connection
 * authenticates as a node (username = node name) or as the cloud hub (`kedge-cloud`);
 * topic ACLs keep each node on its own topics (docs/protocol.md, "Topics").
 */
export type Authenticate = (username: string, password: string) => boolean | BrokerRole | Promise<boolean | BrokerRole>;

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
}

export interface BrokerHandle {
  /** e.g. mqtt://127.0.0.1:1883 */
  readonly url: string;
  readonly port: number;
  /** Disconnects every client, closes every socket and the listener. Idempotent. */
  close(): Promise<void>;
}

/** CONNACK return code 4: bad user name or password. */
const BAD_CREDENTIALS = 4;
/** CONNACK return code 3: server unavailable. */
const UNAVAILABLE = 3;

function refused(message: string, returnCode = BAD_CREDENTIALS): AuthenticateError {
  return Object.assign(new Error(message), { returnCode });
}

export async function startBroker(options: BrokerOptions): Promise<BrokerHandle> {
  const { host = '127.0.0.1', port, authenticate, logger, signal } = options;
  const identities = new WeakMap<Client, BrokerIdentity>();
  const listening = new Set<Client>(); // cloud clients subscribed to every node's up topic
  const nodes = new Set<Client>();
  const waitForCloud = options.nodesWaitForCloud === true;

  const broker = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      Promise.resolve()
        .then(() => authenticate(username ?? '', password?.toString('utf8') ?? ''))
        .then((verdict) => {
          const who = identify(username, verdict);
          if (!who) {
            logger.warn('broker refused a connection', { clientId: client.id, username });
            return done(refused('bad user name or password'), false);
          }
          if (waitForCloud && who.role === 'node' && listening.size === 0) {
            return done(refused('no cloud hub is listening yet', UNAVAILABLE), false);
          }
          identities.set(client, who);
          done(null, true);
        })
        .catch((err: unknown) => done(refused(`authentication failed: ${String(err)}`), false));
    },
    authorizePublish: (client, packet, done) => {
      // A null client is an obsolete will from shared persistence: nobody to vouch for it.
      const who = client ? identities.get(client) : undefined;
      if (who && mayPublish(who, packet.topic)) return done(null);
      done(new Error(`not authorized to publish to ${packet.topic}`));
    },
    authorizeSubscribe: (client, sub, done) => {
      const who = identities.get(client);
      if (who && maySubscribe(who, sub.topic)) return done(null, sub);
      logger.warn('broker denied a subscription', { clientId: client.id, topic: sub.topic });
      done(null, null); // SUBACK 0x80 for this topic; the connection stays up
    },
  });
  broker.on('clientReady', (client) => identities.get(client)?.role === 'node' && nodes.add(client));
  broker.on('subscribe', (subs, client) => {
    if (identities.get(client)?.role === 'cloud' && subs.some((sub) => sub.topic === topics.allUp)) listening.add(client);
  });
  broker.on('clientDisconnect', (client) => {
    nodes.delete(client);
    if (!listening.delete(client) || listening.size > 0 || !waitForCloud) return;
    logger.warn('the cloud hub left; disconnecting every node', { nodes: nodes.size });
    for (const node of nodes) node.close();
  });
  broker.on('clientError', (client, err) => logger.warn('broker client error', { clientId: client.id, error: err.message }));

  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, broker.handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await listen(server, port, host);
  const bound = (server.address() as { port: number }).port;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      logger.info('broker stopped', { port: bound });
    })());
  const onAbort = (): void => void close();
  if (signal?.aborted) await close();
  else signal?.addEventListener('abort', onAbort, { once: true });

  logger.info('broker listening', { host, port: bound });
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { url: `mqtt://${reachable}:${bound}`, port: bound, close };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
