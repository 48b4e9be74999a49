import type { PodStartupRecorder } from '../shared/trace/pod-startup-trace.js';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startEdge, type EdgeHandle } from '../edge/main.js';
import { realClock, type Clock } from '../shared/clock.js';
import { lockDataDir } from '../shared/data-dir-lock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import type { TransportFactory } from '../shared/transport.js';
import type { Pod } from '../shared/types.js';
import { linkTotals, type LinkTotals } from './control-api.js';
import { fallbackPodCIDR } from './fallback-pod-cidr.js';
import { startLinkProxy, type LinkProxy } from './link-proxy.js';

/** `<data-dir>/fleet.json`: the control API's URL and bearer token (0600), while `kedge fleet` runs. */
export const FLEET_FILE = 'fleet.json';

export interface FleetOptions {
  nodes: number;
  /** Nodes are named `<prefix>-1` … `<prefix>-N` (default "hollow"). */
  namePrefix?: string;
  /** The cloud's broker; with `links` each edge dials its own proxy in front of it instead. */
  brokerUrl: string;
  /** The edge bootstrap token (`<cloud data dir>/tokens.json`, "edge"). */
  token: string;
  /** Each edge keeps its cache and runtime state in `<dataDir>/<node>/`. */
  dataDir: string;
  clock?: Clock;
  timing?: Timing;
  logger?: Logger;
  /** Put a link proxy between every edge and the broker (cut/heal/reset, byte counts). */
  links?: boolean;
  /** How each edge reaches the broker (default: MQTT to `brokerUrl`); not with `links`, which are TCP proxies. */
  transport?: TransportFactory;
  /** How many edges start at once (default 50), so a large fleet does not stampede the broker. */
  concurrency?: number;
  /** Jitter source for the edges' reconnect backoff. */
  random?: () => number;
  /** Remove `dataDir` on stop (default false: a fleet started again finds its caches). */
  removeDataOnStop?: boolean;
  /** One trace every edge notes its pods' startups in (`kedge fleet --trace-pod-startup`). */
  podStartups?: PodStartupRecorder;
}

export interface Fleet {
  /** Node names in start order. */
  readonly names: string[];
  readonly edges: Map<string, EdgeHandle>;
  /** Empty unless started with `links`. */
  readonly links: Map<string, LinkProxy>;
  /** What that hollow edge runs, from its cache, with status; undefined for an unknown node. */
  nodePods(name: string): Promise<Pod[]> | undefined;
  /** Sums over every link, without listing them. */
  linkTotals(): LinkTotals;
  /** The edges' pod startup trace, when started with one. */
  readonly podStartups?: PodStartupRecorder;
  /** Stops every edge and link proxy; resolves once every socket, timer and file is released. */
  stop(): Promise<void>;
}

export const DEFAULT_FLEET_CONCURRENCY = 50;

export function fleetNodeNames(nodes: number, prefix = 'hollow'): string[] {
  return Array.from({ length: nodes }, (_, i) => `${prefix}-${i + 1}`);
}

/** The pods a started edge holds in its cache, as its local API would list them. */
export async function podsOf(edge: EdgeHandle): Promise<Pod[]> {
  await edge.edged.ready();
  return edge.cache
    .objects()
    .filter((o) => o.kind === 'Pod')
    .map((o) => ({ ...(o.object as Pod), apiVersion: 'v1', kind: 'Pod' }));
}

/**
 * N hollow edges in this process (kubemark's hollow nodes, KubeEdge's Edgemark): each a
 * complete edge — its own MQTT connection, identity, cache and sim runtime — speaking the
 * same protocol as `kedge edge`, without a local API. Started in batches of `concurrency`.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const clock = options.clock ?? realClock;
  const timing = options.timing ?? defaultTiming;
  const logger = options.logger ?? silentLogger;
  if (options.transport && options.links) throw new Error('links are TCP proxies: give a fleet links or a transport, not both');
  const names = fleetNodeNames(options.nodes, options.namePrefix);
  const edges = new Map<string, EdgeHandle>();
  const links = new Map<string, LinkProxy>();
  const broker = new URL(options.brokerUrl);
  const target = { host: broker.hostname.replace(/^\[|\]$/g, ''), port: Number(broker.port || 1883) };
  // The fleet holds its data dir; each hollow edge holds its own below.
  const lock = await lockDataDir(options.dataDir, { command: 'kedge fleet', logger });

  const startOne = async (node: string, index: number): Promise<void> => {
    let brokerUrl = options.brokerUrl;
    if (options.links) {
      const link = await startLinkProxy({ name: node, target, clock, timeScale: timing.timeScale, logger: logger.child('links'), ...(options.random && { random: options.random }) });
      links.set(node, link);
      brokerUrl = `${broker.protocol}//${link.host}:${link.port}`;
    }
    const edge = await startEdge({
      nodeName: node,
      brokerUrl,
      token: options.token,
      dataDir: join(options.dataDir, node),
      localApiPort: null,
      // A thousand edges in one process: a durable write's fsyncs and extra steps, a thousandfold, would
      // make the process, not the cloud, what the scale figures measure.
      durableWrites: false,
      serviceProxy: false, // no listeners: a thousand edges share one machine
      usage: 'simulated', // no /proc reads: the edges share one process
      simVolumes: 'memory', // a thousand edges' pods: their volumes are records, not files
      // Pod addresses in memory, from the node's podCIDR; this one while the cloud has assigned none.
      networkPlugin: 'memory',
      eventOutbox: 'memory',
      ...(options.podStartups && { podStartups: options.podStartups }),
      podCIDR: fallbackPodCIDR(index),
      clock,
      timing,
      logger: logger.child(node),
      ...(options.random ? { random: options.random } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
    });
    edges.set(node, edge);
  };

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all([...edges.values()].map((e) => e.stop().catch((err: Error) => logger.warn(`stop ${e.nodeName}: ${err.message}`))));
      await Promise.all([...links.values()].map((l) => l.close()));
      await lock.release();
      if (options.removeDataOnStop) await rm(options.dataDir, { recursive: true, force: true });
    })());

  const batch = Math.max(1, options.concurrency ?? DEFAULT_FLEET_CONCURRENCY);
  try {
    for (let i = 0; i < names.length; i += batch) {
      const results = await Promise.allSettled(names.slice(i, i + batch).map((node, j) => startOne(node, i + j)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    names,
    edges,
    links,
    nodePods: (name) => {
      const edge = edges.get(name);
      return edge && podsOf(edge);
    },
    linkTotals: () => linkTotals(links),
    podStartups: options.podStartups,
    stop,
  };
}
