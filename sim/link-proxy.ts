import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { LinkCondition } from '../shared/wire/dashboard.js';
import { type Direction, type LinkShaping, type LinkView } from './link-lane.js';
import { LaneTiming } from './link-shape/lane-timing.js';
import { LinkPair } from './link-pair.js';
import { Flapper, type FlapSchedule, type FlapState } from './link-shape/flap.js';
import { laneProfile, shapesNothing, type LinkProfile } from './link-shape/profile.js';
import { clusterClock } from './link-shape/scaled-clock.js';
import { emptyShapeCounters, type ShapeCounters } from './link-shape/shaped-lane.js';
import { mulberry32 } from '../shared/seeded-random.js';
import { listenTcp } from './tcp-listen.js';

export interface LinkProxyOptions {
  /** Usually the node whose link this is. */
  name: string;
  target: { host: string; port: number };
  listenHost?: string;
  /** 0 (the default) picks a free port. */
  listenPort?: number;
  clock: Clock;
  logger: Logger;
  /** The demo's `--time-scale`: profiles and flaps are in cluster time (default 1). */
  timeScale?: number;
  /** Jitter and loss draws of a profile without a seed (default Math.random). */
  random?: () => number;
  /**
   * A second target (the demo's bulk sink): the proxy also listens on `sinkPort` and forwards
   * there, through the same link (its cuts, flaps, shaping, rate caps and counters).
   */
  sink?: { host: string; port: number };
}

/** Also what shaping did (ShapeCounters: delayed chunks and bytes, dropped segments). */
export interface LinkState extends ShapeCounters {
  name: string;
  state: LinkCondition;
  /** When the link last changed state (or the proxy started), ISO 8601. */
  since: string;
  /** Client connections still open (including ones held in a blackhole during a cut). */
  connections: number;
  /** Bytes forwarded client → target, and target → client. */
  bytesUp: number;
  bytesDown: number;
  /** Set while the link is shaped (`kedge link shape`). */
  profile?: LinkProfile;
  /** Set while the link flaps on a schedule (`kedge link flap`). */
  flap?: FlapState;
  /** Bytes on their way through the shaping queues, each way. */
  queuedUp: number;
  queuedDown: number;
}

export type LinkCounters = ShapeCounters & { bytesUp: number; bytesDown: number };

export interface LinkProxy {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** `tcp://host:port`; swap the scheme for the protocol spoken through it. */
  readonly url: string;
  /** With a sink: the port whose connections go to it, through this link. */
  readonly sinkPort?: number;
  /** Pulls the cable: nothing passes either way, and neither end is told. */
  cut(): LinkState;
  /** Plugs it back in: held bytes arrive; pairs that lost an end meanwhile are reset. */
  heal(): LinkState;
  /** Resets every current connection (RST to both ends); the link stays as it is. */
  reset(): LinkState;
  /** Shapes every connection, current and future, by the profile; undefined: no shaping. */
  shape(profile: LinkProfile | undefined): LinkState;
  /** Cuts and heals the link on a schedule (replacing any before); undefined: stops flapping (healing). */
  flap(schedule: FlapSchedule | undefined): LinkState;
  state(): LinkState;
  close(): Promise<void>;
}

/**
 * The link's bottleneck each way for a new profile: the one it had, re-profiled (what is queued
 * stays queued), or a new one. Every connection's lane admits its bytes through it, so a rate
 * cap is the link's, shared by all its connections, in arrival order (a FIFO, as a router's).
 */
function linkTimings(profile: LinkProfile, before: LinkShaping | undefined, random: () => number): Record<Direction, LaneTiming> {
  if (!before) return { up: new LaneTiming(laneProfile(profile, 'up'), random), down: new LaneTiming(laneProfile(profile, 'down'), random) };
  before.timings.up.setProfile(laneProfile(profile, 'up'));
  before.timings.down.setProfile(laneProfile(profile, 'down'));
  return before.timings;
}

/**
 * A TCP proxy that can be cut the way a pulled cable is: no FIN, no RST, bytes simply stop
 * in both directions and each end finds out through its own keepalive.
 */
export async function startLinkProxy(options: LinkProxyOptions): Promise<LinkProxy> {
  const { name, target, clock, logger } = options;
  const pairs = new Set<LinkPair>();
  const counters: LinkCounters = { bytesUp: 0, bytesDown: 0, ...emptyShapeCounters() };
  const cluster = clusterClock(clock, options.timeScale ?? 1);
  let condition: LinkCondition = 'up';
  let since = clock.now();
  let profile: LinkProfile | undefined;
  let shaping: LinkShaping | undefined;
  let flapper: Flapper | undefined;
  let draw: () => number = Math.random;

  const view: LinkView = {
    isUp: () => condition === 'up',
    shaping: () => shaping,
    countUp: (n) => (counters.bytesUp += n),
    countDown: (n) => (counters.bytesDown += n),
  };
  const accepting = (to: { host: string; port: number }) => (client: Socket): void => {
    const upstream = condition === 'up' ? connect({ host: to.host, port: to.port, noDelay: true }) : undefined;
    pairs.add(new LinkPair(client, upstream, view, (pair) => pairs.delete(pair)));
  };
  const listenHost = options.listenHost ?? '127.0.0.1';
  const server = await listenTcp(accepting(target), options.listenPort ?? 0, listenHost);
  const sinkServer = options.sink && (await listenTcp(accepting(options.sink), 0, listenHost));
  for (const s of [server, sinkServer]) s?.on('error', (err) => logger.warn(`link proxy ${name}: ${err.message}`));
  const address = server.address() as AddressInfo;

  const state = (): LinkState => {
    const queued = { queuedUp: 0, queuedDown: 0 };
    for (const pair of pairs) {
      const q = pair.queued();
      queued.queuedUp += q.up;
      queued.queuedDown += q.down;
    }
    return {
      name,
      state: condition,
      since: new Date(since).toISOString(),
      connections: [...pairs].filter((p) => p.open).length,
      ...counters,
      ...queued,
      ...(profile && { profile }),
      ...(flapper && { flap: flapper.state() }),
    };
  };
  const become = (next: LinkCondition): void => {
    if (condition === next) return;
    condition = next;
    since = clock.now();
  };
  let closing: Promise<void> | undefined;
  const proxy: LinkProxy = {
    name,
    host: address.address,
    port: address.port,
    url: `tcp://${address.address}:${address.port}`,
    ...(sinkServer && { sinkPort: (sinkServer.address() as AddressInfo).port }),
    state,
    cut() {
      become('cut');
      logger.info(`link ${name} cut`, { connections: pairs.size });
      return state();
    },
    shape(next) {
      profile = next;
      draw = next?.seed !== undefined ? mulberry32(next.seed) : (options.random ?? Math.random);
      shaping = next && !shapesNothing(next) ? { profile: next, clock: cluster, random: () => draw(), counters, timings: linkTimings(next, shaping, () => draw()) } : undefined;
      for (const pair of pairs) pair.shape(shaping);
      logger.info(next ? `link ${name} shaped: ${next.name}` : `link ${name} unshaped`);
      return state();
    },
    flap(schedule) {
      flapper?.stop();
      flapper = schedule && new Flapper(schedule, { clock: cluster, cut: () => proxy.cut(), heal: () => proxy.heal() });
      logger.info(schedule ? `link ${name} flaps: down ${schedule.downMs} ms every ${schedule.everyMs} ms` : `link ${name} stops flapping`);
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
        flapper?.cancel();
        flapper = undefined;
        sinkServer?.close();
        server.close(() => resolve());
        for (const pair of pairs) pair.destroy();
        pairs.clear();
      })),
  };
  return proxy;
}
