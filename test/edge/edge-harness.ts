import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { startEdge, type EdgeHandle, type EdgeOptions } from '../../edge/main.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger, type Logger } from '../../shared/log.js';
import { defaultTiming, type Timing } from '../../shared/timing.js';
import type { ObjectList, Pod } from '../../shared/types.js';
import { TEST_POD_CIDR } from '../support/test-network.js';

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
    const edge = await startEdge({ nodeName: NODE, token: 'secret', localApiPort: 0, timing, clock: this.clock, logger: this.logger, random: () => 0.5, podCIDR: TEST_POD_CIDR, ...options });
    this.edges.push(edge);
    return edge;
  }

  async stopAll(): Promise<void> {
    for (const e of this.edges.splice(0)) await e.stop();
  }
}

export interface OfflineEdges {
  /** A temp dir, made before each test and removed after it. */
  dir: string;
  clock: FakeClock;
  /** Edges on `clock`, all stopped after each test. */
  fleet: EdgeFleet;
  /** A broker nothing answers on: the cloud is unreachable. */
  brokerUrl: string;
}

/** Sets up, before each test of the suite that calls it, edges with the cloud unreachable; tears them down after. */
export function offlineEdges(prefix: string): OfflineEdges {
  const t = {} as OfflineEdges;
  beforeEach(async () => {
    t.dir = await mkdtemp(join(tmpdir(), prefix));
    t.clock = new FakeClock();
    t.fleet = new EdgeFleet(t.clock, memoryLogger('edge'));
    t.brokerUrl = await deadBrokerUrl();
  });
  afterEach(async () => {
    await t.fleet.stopAll();
    await rm(t.dir, { recursive: true, force: true });
  });
  return t;
}
