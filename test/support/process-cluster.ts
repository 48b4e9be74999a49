import { join } from 'node:path';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import type { FakeClock } from '../../shared/clock.js';
import type { Cluster } from '../../sim/local-cluster.js';
import { testNetwork } from './test-network.js';

/** Stops a cluster whose edges may still run real processes: each edge is stopped, then what it left running is killed (as a reboot would). */
export async function stopKillingProcesses(c: Cluster<FakeClock>): Promise<void> {
  for (const node of [...c.edges.keys()]) {
    await c.stopEdge(node);
    await (await ProcessRuntime.open({ network: testNetwork(), dataDir: join(c.dir, 'edges', node), clock: c.clock, reboot: true })).close();
  }
  await c.stop();
}
