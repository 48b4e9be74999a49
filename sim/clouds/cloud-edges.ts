import { join } from 'node:path';
import { readEdgeToken } from '../../cloud/apiserver/auth/credentials.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { DEMO_KEEPALIVE_SECONDS, demoNodeIp } from '../demo.js';
import { DemoEdges } from '../demo-edges.js';
import type { CloudSet } from './cloud-set.js';

export interface CloudEdgesOptions {
  clouds: CloudSet;
  /** edge-1 … edge-N. */
  count: number;
  /** Each edge's data dir is `<dir>/<node>`. */
  dir: string;
  timeScale: number;
  clock: Clock;
  logger: Logger;
  onLine?: (line: string) => void;
  /** More flags for every edge. */
  args?: readonly string[];
}

export interface CloudEdges {
  readonly edges: DemoEdges;
  readonly nodes: readonly string[];
  /** The node's local API (its current process's: a restarted edge listens on another port). */
  localApiUrl(node: string): string;
  /** Its data dir. */
  dataDir(node: string): string;
  /** Stops every edge (their pods stay as a stopped edge leaves them). */
  stop(): Promise<void>;
}

/**
 * Starts `count` `kedge edge` processes given every cloud's broker (`--broker URL,URL…`) and the
 * cluster's edge token, as edges that joined before the other clouds existed would be.
 */
export async function startCloudEdges(o: CloudEdgesOptions): Promise<CloudEdges> {
  const token = await readEdgeToken(o.clouds.members[0]!.dataDir);
  const edges = new DemoEdges({
    clock: o.clock,
    logger: o.logger,
    restartCommand: (node) => `kedge edge --node ${node} …`,
    stopGraceMs: 10_000,
    env: { KEDGE_TOKEN: token },
    onLine: o.onLine,
  });
  const stop = (): Promise<void> => edges.stopAll();
  const dataDir = (node: string): string => join(o.dir, node);
  try {
    for (let i = 1; i <= o.count; i++) {
      const node = `edge-${i}`;
      edges.start(node, [
        'edge', '--node', node, '--broker', o.clouds.brokerUrls, '--data-dir', dataDir(node),
        '--node-ip', demoNodeIp(i), '--keepalive', String(DEMO_KEEPALIVE_SECONDS), '--local-api-port', '0',
        '--time-scale', String(o.timeScale), ...(o.args ?? []),
      ]);
    }
    for (const edge of edges.processes.values()) await edge.ready;
    const localApiUrl = (node: string): string => {
      const url = edges.info(node)?.localApiUrl;
      if (!url) throw new Error(`no edge ${node} here (${[...edges.processes.keys()].join(', ')})`);
      return url;
    };
    return { edges, nodes: [...edges.processes.keys()], localApiUrl, dataDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
