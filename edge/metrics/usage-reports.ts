import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { NodeUsage, UpDraft } from '../../shared/protocol/envelope.js';
import type { Measured } from './usage-collector.js';

export interface UsageReportsDeps {
  collect: () => Promise<NodeUsage>;
  isConnected: () => boolean;
  send: (draft: UpDraft) => Promise<string>;
  clock: Clock;
  /** timing.metricsResolutionMs */
  intervalMs: number;
  logger: Logger;
}

/**
 * [SYNC-22] Samples the node's usage at once and every intervalMs, and sends each sample as a
 * `usage` report while connected; not acked, and never queued: the next one supersedes it.
 * Sampling goes on while offline, so the first report after a reconnect has a rate. Returns
 * the function that stops it.
 */
export function startUsageReports(deps: UsageReportsDeps): () => void {
  let busy = false;
  const tick = async (): Promise<void> => {
    if (busy) return; // a slow /proc read: skip a beat rather than pile up
    busy = true;
    try {
      const body = await deps.collect();
      if (deps.isConnected()) await deps.send({ type: 'usage', body });
    } catch (err) {
      deps.logger.info('usage not reported', { error: (err as Error).message });
    } finally {
      busy = false;
    }
  };
  void tick();
  return deps.clock.setRepeating(deps.intervalMs, () => void tick());
}

/** This process's own use: its CPU time (user and system) and resident memory. */
export function ownProcess(): Measured {
  const cpu = process.cpuUsage();
  return { cpuNs: (cpu.user + cpu.system) * 1000, memoryBytes: process.memoryUsage.rss() };
}
