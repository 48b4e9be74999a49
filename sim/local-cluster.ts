import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloud, type Cloud } from '../cloud/main.js';
import { startEdge, type EdgeHandle } from '../edge/main.js';
import type { SimVolumes } from '../edge/volumes/volume-hosts.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import type { Transport, TransportIdentity } from '../shared/transport.js';
import type { Pod } from '../shared/types.js';
import { PodStartupRecorder, preciseWallTime } from '../shared/trace/pod-startup-trace.js';
import { memoryWiring, mqttWiring, type ClusterWiring } from './cluster-wiring.js';
import { fallbackPodCIDR } from './fallback-pod-cidr.js';
import type { LinkProxy } from './link-proxy.js';

export interface ClusterOptions<C extends Clock> {
  clock: C;
  nodes?: number;
  /** Cloud store: memory (default) or durable in the cluster's temp dir. */
  store?: 'memory' | 'durable';

  /**
   * How the hub and the edges reach each other. 'memory' (the default; tests): one in-memory
   * broker on the cluster's clock, with the embedded broker's admission, and no socket.
   * 'mqtt': the embedded broker on port 0 over TCP (benchmarks, and what is about real sockets).
   */
  transport?: 'memory' | 'mqtt';
  timing?: Partial<Timing>;
  logger?: Logger;
  /** 'mqtt' only: every edge through its own link proxy (`link(node)`), so that its cable can be pulled. */
  links?: boolean;
  /** Run kube-proxy on the edges (listeners on their node address, port 0 portals); default false, so tests and benches open none. */
  serviceProxy?: boolean;
  /** Register the cloud as this control-plane Node with its mirror pods (as `kedge cloud` does); default: none. */
  controlPlaneNode?: string;
  /** Create the edge agents' kube-system DaemonSets (as `kedge cloud` does); default: no. */
  agentDaemonSets?: boolean;
  /** The prefix length of each node's podCIDR (`kedge cloud --node-cidr-mask-size`; default 24: 253 pods a node). */
  nodeCidrMaskSize?: number;
  /** Where the edges keep sim pods' volumes: 'disk' (default, as `kedge edge`) or 'memory' (benches that read the records). */
  simVolumes?: SimVolumes;
  /** The cloud and the edges note each pod's way to Running in one trace (`podStartups`; `kedge cloud --trace-pod-startup`). */
  tracePodStartup?: boolean;
}

/**
 * A cloud and N edges in this process, all on one clock (a FakeClock in tests, the real one in
 * benchmarks), over an in-memory broker or a real one on port 0; data in a temp dir removed on stop.
 * Each node's cable can be cut, healed and reset (with 'mqtt', given `links`).
 */
export class Cluster<C extends Clock = Clock> {
  readonly edges = new Map<string, EdgeHandle>();
  /** Each node's --pod-cidr, kept across its restarts. */
  private readonly podCIDRs = new Map<string, string>();

  private constructor(
    readonly dir: string,
    readonly clock: C,
    readonly timing: Timing,
    readonly cloud: Cloud,
    private readonly logger: Logger,
    private readonly wiring: ClusterWiring,
    private readonly serviceProxy: boolean,
    private readonly simVolumes: SimVolumes,
    /** The cloud's and the edges' one pod startup trace, when asked for. */
    readonly podStartups?: PodStartupRecorder,
  ) {}

  static async start<C extends Clock>(options: ClusterOptions<C>): Promise<Cluster<C>> {
    const clock = options.clock;
    const timing = { ...defaultTiming, ...options.timing };
    const logger = options.logger ?? silentLogger;
    const transport = options.transport ?? 'memory';
    if (transport === 'memory' && options.links) throw new Error("links: true is for transport 'mqtt' (in memory, cut, heal and reset need no proxy)");
    const wiring = transport === 'memory' ? memoryWiring({ clock, timing, logger }) : mqttWiring({ clock, timing, logger }, options.links ?? false);
    const dir = await mkdtemp(join(tmpdir(), 'kedge-cluster-'));
    const podStartups = options.tracePodStartup ? new PodStartupRecorder(preciseWallTime) : undefined;
    const cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, ...wiring.cloud, store: options.store ?? 'memory', clock, timing, logger, controlPlaneNode: options.controlPlaneNode, agentDaemonSets: options.agentDaemonSets, nodeCidrMaskSize: options.nodeCidrMaskSize, podStartups }).catch(async (err: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw err;
    });
    const cluster = new Cluster(dir, clock, timing, cloud, logger, wiring, options.serviceProxy ?? false, options.simVolumes ?? 'disk', podStartups);
    for (let i = 1; i <= (options.nodes ?? 2); i++) await cluster.startEdge(`edge-${i}`);
    return cluster;
  }

  get api(): Cloud['api'] {
    return this.cloud.api;
  }

  async startEdge(node: string, extra: { reboot?: boolean; nodeIp?: string } = {}): Promise<EdgeHandle> {
    if (!this.podCIDRs.has(node)) this.podCIDRs.set(node, fallbackPodCIDR(this.podCIDRs.size));
    const edge = await startEdge({
      nodeName: node,
      ...(await this.wiring.edge(node, this.cloud)),
      token: this.cloud.credentials.edge,
      dataDir: join(this.dir, 'edges', node),
      localApiPort: 0,
      clock: this.clock,
      timing: this.timing,
      logger: this.logger,
      random: () => 0.5,
      serviceProxy: this.serviceProxy,
      simVolumes: this.simVolumes,
      ...(this.podStartups && { podStartups: this.podStartups }),
      // Pod addresses in memory (cheap), from the node's podCIDR; this one while the cloud has assigned none.
      networkPlugin: 'memory',
      podCIDR: this.podCIDRs.get(node)!,
      ...extra,
    });
    this.edges.set(node, edge);
    return edge;
  }

  /** Pulls `node`'s cable: nothing passes either way, and neither end is told; each notices by its keepalive. */
  cut(node: string): void {
    this.wiring.cut(node);
  }

  /** Plugs `node`'s cable back in: what waited arrives; a connection that lost an end meanwhile is reset. */
  heal(node: string): void {
    this.wiring.heal(node);
  }

  /** Resets `node`'s connections at both ends at once; the cable stays as it is. */
  reset(node: string): void {
    this.wiring.reset(node);
  }

  /** The link proxy in front of the broker for `node` (transport 'mqtt' with links: true). */
  link(node: string): LinkProxy {
    return this.wiring.link(node);
  }

  /** A client (not started) of the in-memory broker as `identity`, with the edges' timing: a forged node, a second cloud. */
  transport(identity: TransportIdentity): Transport {
    return this.wiring.client(identity);
  }

  async stopEdge(node: string): Promise<void> {
    await this.edges.get(node)?.stop();
    this.edges.delete(node);
  }

  edge(node: string): EdgeHandle {
    const edge = this.edges.get(node);
    if (!edge) throw new Error(`no edge ${node}`);
    return edge;
  }

  /** What an edge's local API says it runs. */
  async edgePods(node: string): Promise<Pod[]> {
    const res = await fetch(`${this.edge(node).localApiUrl}/pods`);
    return ((await res.json()) as { items: Pod[] }).items;
  }

  async stop(): Promise<void> {
    for (const node of [...this.edges.keys()]) await this.stopEdge(node);
    await this.wiring.close();
    await this.cloud.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
