import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloud, type Cloud } from '../cloud/main.js';
import { startEdge, type EdgeHandle } from '../edge/main.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import { defaultTiming, type Timing } from '../shared/timing.js';
import type { Pod } from '../shared/types.js';
import { startLinkProxy, type LinkProxy } from './link-proxy.js';

export interface ClusterOptions<C extends Clock> {
  clock: C;
  nodes?: number;
  /** Cloud store: memory (default) or durable in the cluster's temp dir. */
  store?: 'memory' | 'durable';

  timing?: Partial<Timing>;
  logger?: Logger;
  /** Route every edge through its own link proxy, so that its cable can be pulled. */
  links?: boolean;
}

/**
 * A cloud and N edges in this process, over a real broker on port 0, all on one clock
 * (a FakeClock in tests, the real one in benchmarks); data in a temp dir removed on stop.
 */
export class Cluster<C extends Clock = Clock> {
  readonly edges = new Map<string, EdgeHandle>();
  readonly links = new Map<string, LinkProxy>();

  private constructor(
    readonly dir: string,
    readonly clock: C,
    readonly timing: Timing,
    readonly cloud: Cloud,
    private readonly logger: Logger,
    private readonly linked: boolean,
  ) {}

  static async start<C extends Clock>(options: ClusterOptions<C>): Promise<Cluster<C>> {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-cluster-'));
    const clock = options.clock;
    const timing = { ...defaultTiming, ...options.timing };
    const logger = options.logger ?? silentLogger;
    const cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, store: options.store ?? 'memory', clock, timing, logger });
    const cluster = new Cluster(dir, clock, timing, cloud, logger, options.links ?? false);
    for (let i = 1; i <= (options.nodes ?? 2); i++) await cluster.startEdge(`edge-${i}`);
    return cluster;
  }

  get api(): Cloud['api'] {
    return this.cloud.api;
  }

  async startEdge(node: string, extra: { reboot?: boolean } = {}): Promise<EdgeHandle> {
    const edge = await startEdge({
      nodeName: node,
      brokerUrl: this.linked ? await this.linkUrl(node) : this.cloud.brokerUrl,
      token: this.cloud.credentials.edge,
      dataDir: join(this.dir, 'edges', node),
      localApiPort: 0,
      clock: this.clock,
      timing: this.timing,
      logger: this.logger,
      random: () => 0.5,
      ...extra,
    });
    this.edges.set(node, edge);
    return edge;
  }

  /** The link proxy in front of the broker for `node` (made on first use). */
  link(node: string): LinkProxy {
    const link = this.links.get(node);
    if (!link) throw new Error(`no link for ${node}`);
    return link;
  }

  private async linkUrl(node: string): Promise<string> {
    if (!this.links.has(node)) {
      const broker = new URL(this.cloud.brokerUrl);
      const target = { host: broker.hostname, port: Number(broker.port) };
      this.links.set(node, await startLinkProxy({ name: node, target, clock: this.clock, logger: this.logger }));
    }
    return `mqtt://127.0.0.1:${this.link(node).port}`;
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
    for (const link of this.links.values()) await link.close();
    await this.cloud.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
