import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { LinkCondition } from '../shared/wire/dashboard.js';
import { LinkPair, type LinkView } from './link-pair.js';

export interface LinkProxyOptions {
  /** Usually the node whose link this is. */
  name: string;
  target: { host: string; port: number };
  listenHost?: string;
  /** 0 (the default) picks a free port. */
  listenPort?: number;
  clock: Clock;
  logger: Logger;
}

export interface LinkState {
  name: string;
  state: LinkCondition;
  /** When the link last changed state (or the proxy started), ISO 8601. */
  since: string;
  /** Client connections still open (including ones held in a blackhole during a cut). */
  connections: number;
  /** Bytes forwarded client → target, and target → client. */
  bytesUp: number;
  bytesDown: number;
}

export interface LinkProxy {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** `tcp://host:port`; swap the scheme for the protocol spoken through it. */
  readonly url: string;
  /** Pulls the cable: nothing passes either way, and neither end is told. */
  cut(): LinkState;
  /** Plugs it back in: held bytes arrive; pairs that lost an end meanwhile are reset. */
  heal(): LinkState;
  /** Resets every current connection (RST to both ends); the link stays as it is. */
  reset(): LinkState;
  state(): LinkState;
  close(): Promise<void>;
}

/**
 * A TCP proxy that can be cut the way a pulled cable is: no FIN, no RST, bytes simply stop
 * in both directions and each end finds out through its own keepalive.
 */
export async function startLinkProxy(options: LinkProxyOptions): Promise<LinkProxy> {
  const { name, target, clock, logger } = options;
  const pairs = new Set<LinkPair>();
  const counters = { bytesUp: 0, bytesDown: 0 };
  let condition: LinkCondition = 'up';
  let since = clock.now();

  const view: LinkView = {
    isUp: () => condition === 'up',
    countUp: (n) => (counters.bytesUp += n),
    countDown: (n) => (counters.bytesDown += n),
  };
  const accept = (client: Socket): void => {
    const upstream = condition === 'up' ? connect({ host: target.host, port: target.port, noDelay: true }) : undefined;
    pairs.add(new LinkPair(client, upstream, view, (pair) => pairs.delete(pair)));
  };
  const server = createServer({ noDelay: true }, accept);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? 0, options.listenHost ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.warn(`link proxy ${name}: ${err.message}`));
  const address = server.address() as AddressInfo;

  const state = (): LinkState => ({
    name,
    state: condition,
    since: new Date(since).toISOString(),
    connections: [...pairs].filter((p) => p.open).length,
    ...counters,
  });
  const become = (next: LinkCondition): void => {
    if (condition === next) return;
    condition = next;
    since = clock.now();
  };
  let closing: Promise<void> | undefined;

  return {
    name,
    host: address.address,
    port: address.port,
    url: `tcp://${address.address}:${address.port}`,
    state,
    cut() {
      become('cut');
      logger.info(`link ${name} cut`, { connections: pairs.size });
      return state();
    },
    heal() {
      if (condition === 'cut') {
        become('up');
        for (const pair of [...pairs]) pair.heal();
        logger.info(`link ${name} healed`, { connections: pairs.size });
      }
      return state();
    },
    reset() {
      for (const pair of [...pairs]) pair.reset();
      logger.info(`link ${name} reset`, { connections: pairs.size });
      return state();
    },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const pair of pairs) pair.destroy();
        pairs.clear();
      })),
  };
}
