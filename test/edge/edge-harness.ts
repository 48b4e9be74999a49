import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startEdge, type EdgeHandle, type EdgeOptions } from '../../edge/main.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import type { FakeClock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { defaultTiming, type Timing } from '../../shared/timing.js';
import type { ObjectList, Pod } from '../../shared/types.js';

export const NODE = 'edge-1';
export const timing: Timing = { ...defaultTiming };

/** An mqtt:// URL nothing listens on: the cloud is unreachable (connections are refused). */
export async function deadBrokerUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `mqtt://127.0.0.1:${port}`;
}

/** Writes pods into the edge's cache file, as if the cloud had sent them before. */
export async function seedCache(dataDir: string, pods: Pod[]): Promise<void> {
  const cache = await openLowdbCache(join(dataDir, CACHE_FILE));
  for (const p of pods) {
    const { name = '', namespace, uid = '', resourceVersion } = p.metadata;
    cache.apply({ kind: 'Pod', name, uid, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) }, p);
  }
  await cache.flush();
}

export async function podsOf(edge: EdgeHandle): Promise<Pod[]> {
  const list = (await (await fetch(`${edge.localApiUrl}/pods`)).json()) as ObjectList<Pod>;
  return list.items;
}

/** Every pod Running with every container running (what "Running" means in these tests). */
export function allRunning(pods: Pod[]): boolean {
  return pods.length > 0 && pods.every((p) => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.state.running !== undefined));
}

/** Starts edges on one fake clock and stops them all in `stopAll`. */
export class EdgeFleet {
  private readonly edges: EdgeHandle[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly logger: Logger,
  ) {}

  async start(options: Pick<EdgeOptions, 'brokerUrl' | 'dataDir'> & Partial<EdgeOptions>): Promise<EdgeHandle> {
    const edge = await startEdge({ nodeName: NODE, token: 'secret', localApiPort: 0, timing, clock: this.clock, logger: this.logger, random: () => 0.5, ...options });
    this.edges.push(edge);
    return edge;
  }

  async stopAll(): Promise<void> {
    for (const e of this.edges.splice(0)) await e.stop();
  }
}
