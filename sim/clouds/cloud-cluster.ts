import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../cloud/client/client.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { demoClusterCidr } from '../demo.js';
import { startEtcdCluster, type EtcdCluster } from '../etcd/etcd-cluster.js';
import { waitForReadyNodes } from '../fleet-pods.js';
import { startCloudEdges, type CloudEdges } from './cloud-edges.js';
import { startCloudSet, type CloudSet } from './cloud-set.js';
import { cloudsApi } from './clouds-api.js';
import { readLeaders, soleLeader, type Leaders } from './leaders.js';
import { pollUntil } from './poll.js';

export interface CloudClusterOptions {
  clouds: number;
  edges: number;
  /** Members of the etcd started for the clouds. */
  etcdMembers: number;
  timeScale: number;
  clock: Clock;
  logger: Logger;
  /** Every process's output line, prefixed by its name. */
  onLine?: (line: string) => void;
  /** Where every data dir goes; a fresh temp dir (removed on close) if not given. */
  dir?: string;
  /** How long (real time) the clouds may take to agree on a leader and the edges to be Ready (default 60 s). */
  readyTimeoutMs?: number;
}

/** An etcd, clouds on it, and edges given every cloud's broker: one cluster, each part a process of its own. */
export interface CloudCluster {
  readonly dir: string;
  readonly etcd: EtcdCluster;
  readonly clouds: CloudSet;
  readonly edges: CloudEdges;
  /** The admin's client, over every cloud's API (a dead cloud's requests go to the next). */
  readonly api: ApiClient;
  readonly nodes: readonly string[];
  leaders(): Promise<Leaders>;
  /** Waits until one cloud holds every control-plane Lease; its name. */
  waitForSoleLeader(timeoutMs: number): Promise<string>;
  /** Waits until every control-plane Lease is held by a cloud other than `from` (not always the same one: each Lease has its own election). */
  waitForTakeover(from: string, timeoutMs: number): Promise<Leaders>;
  /** Makes `cloud` hold every Lease: the other clouds stop (releasing theirs), then start again as standbys. */
  gatherLeases(cloud: string, timeoutMs: number): Promise<void>;
  /** The index of the named cloud in `clouds`. */
  indexOf(cloud: string): number;
  /** Stops every edge, cloud and etcd member (kill -9 of what does not stop in time) and removes a temp dir it made. */
  close(): Promise<void>;
}

/** Starts etcd, then the clouds, then the edges; resolves once every edge is Ready and one cloud leads. */
export async function startCloudCluster(o: CloudClusterOptions): Promise<CloudCluster> {
  const dir = o.dir ?? (await mkdtemp(join(tmpdir(), 'kedge-clouds-')));
  const closers: (() => Promise<unknown>)[] = o.dir ? [] : [() => rm(dir, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const step of closers.splice(0).reverse()) await step().catch((err: unknown) => o.logger.warn(`close: ${(err as Error).message}`));
  };
  try {
    const etcd = await startEtcdCluster({ size: o.etcdMembers, clock: o.clock });
    closers.push(() => etcd.close());
    const clouds = await startCloudSet({
      count: o.clouds, etcdEndpoints: etcd.endpoints, dir: join(dir, 'clouds'), timeScale: o.timeScale, clock: o.clock, onLine: o.onLine,
      args: ['--cluster-cidr', demoClusterCidr(dir)],
    });
    closers.push(() => clouds.close());
    const access = await cloudsApi(clouds.members.map((m) => m.apiUrl), clouds.members[0]!.dataDir);
    closers.push(async () => access.close());
    const edges = await startCloudEdges({ clouds, count: o.edges, dir: join(dir, 'edges'), timeScale: o.timeScale, clock: o.clock, logger: o.logger, onLine: o.onLine });
    closers.push(() => edges.stop());
    const { nodes } = edges;
    const leaders = (): Promise<Leaders> => readLeaders(access.api, clouds.members);
    const waitFor = (what: string, timeoutMs: number, check: (l: Leaders) => boolean): Promise<Leaders> =>
      pollUntil(o.clock, async () => {
        const now = await leaders();
        return check(now) && now;
      }, what, timeoutMs);
    const waitForSoleLeader = async (timeoutMs: number): Promise<string> => soleLeader(await waitFor('one cloud to hold every Lease', timeoutMs, (l) => soleLeader(l) !== undefined))!;
    const waitForTakeover = (from: string, timeoutMs: number): Promise<Leaders> =>
      waitFor(`clouds other than ${from} to hold every Lease`, timeoutMs, (l) => Object.values(l).every((holder) => holder !== undefined && holder !== from));
    const gatherLeases = async (cloud: string, timeoutMs: number): Promise<void> => {
      const others = clouds.members.map((_, i) => i).filter((i) => clouds.members[i]!.name !== cloud && clouds.isRunning(i));
      await Promise.all(others.map((i) => clouds.stop(i)));
      await waitFor(`${cloud} to hold every Lease`, timeoutMs, (l) => soleLeader(l) === cloud);
      await Promise.all(others.map((i) => clouds.start(i)));
    };
    const readyTimeoutMs = o.readyTimeoutMs ?? 60_000;
    await waitForReadyNodes(access.api, [...nodes], { clock: o.clock, timeoutMs: readyTimeoutMs, pollMs: 100 });
    await waitForSoleLeader(readyTimeoutMs);
    return {
      dir, etcd, clouds, edges, api: access.api, nodes, leaders, waitForSoleLeader, waitForTakeover, gatherLeases, close,
      indexOf: (cloud) => clouds.members.findIndex((m) => m.name === cloud),
    };
  } catch (err) {
    await close();
    throw err;
  }
}
