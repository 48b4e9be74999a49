import { wallDelay } from '../shared/clock.js';
import type { Cluster } from '../sim/local-cluster.js';

/** Polls `check` every 20 ms until it holds; rejects after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wallDelay(20);
  }
}

/** Pulls the nodes' cables (with a reset, so that both ends know at once); resolves once the cloud sees them gone. */
export async function partition(cluster: Cluster, nodes: string[]): Promise<void> {
  for (const n of nodes) {
    cluster.link(n).cut();
    cluster.link(n).reset();
  }
  await until(async () => nodes.every((n) => !cluster.cloud.hub.connectedNodes().includes(n)), 'the cloud to see the nodes gone');
}
