import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import type { ContainerInfo, Runtime } from '../runtime/runtime.js';
import { stopGraceMs } from './stop-grace.js';

export interface ContainerStop {
  containerId: string;
  graceMs: number;
}

/**
 * kubelet's graceful node shutdown: every container that runs (or is on its way) is stopped,
 * each given its pod's grace period but never more than the shutdown's own.
 */
export function planNodeShutdown(containers: readonly ContainerInfo[], pods: readonly Pod[], timing: Pick<Timing, 'timeScale'>, shutdownGraceMs: number): ContainerStop[] {
  return containers
    .filter((c) => c.state === 'running' || c.starting === true)
    .map((c) => ({ containerId: c.id, graceMs: Math.min(shutdownGraceMs, stopGraceMs(pods.find((p) => p.metadata.uid === c.podUid), timing)) }));
}

export interface NodeShutdownDeps {
  runtime: Pick<Runtime, 'listContainers' | 'stopContainer'>;
  pods: () => Pod[];
  timing: Pick<Timing, 'timeScale'>;
  logger: Logger;
}

/**
 * Stops every container of the process runtime as planNodeShutdown says, all at once (a node
 * shutdown for the pods that are real processes); resolves when each is gone.
 */
export async function stopProcessPods(deps: NodeShutdownDeps, shutdownGraceMs: number): Promise<void> {
  const stops = planNodeShutdown(await deps.runtime.listContainers(), deps.pods(), deps.timing, shutdownGraceMs);
  deps.logger.info(`node shutdown: stopping ${stops.length} process pod container${stops.length === 1 ? '' : 's'} (SIGTERM, then SIGKILL after at most ${shutdownGraceMs / 1000} s)`);
  const settled = await Promise.allSettled(stops.map((s) => deps.runtime.stopContainer(s.containerId, s.graceMs)));
  for (const r of settled) if (r.status === 'rejected') deps.logger.warn('node shutdown: a process pod container could not be stopped', { error: String(r.reason) });
}
