import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { NodeUsage, UpDraft } from '../../shared/protocol/envelope.js';
import { ReportGate } from '../report-gate.js';
import type { Measured } from './usage-collector.js';

export interface UsageReportsDeps {
  collect: () => Promise<NodeUsage>;
  isConnected: () => boolean;
  /**
   * Emits whenever the cloud may not hold the node's last report (each connect, each answer to a
   * hello: it forgets a node's usage when the node goes away, and drops a report sent before its
   * hello was taken): the next sample goes whatever it says.
   */
  resets$: Observable<unknown>;
  send: (draft: UpDraft) => Promise<string>;
  clock: Clock;
  /** timing.metricsResolutionMs */
  intervalMs: number;
  /** Longest time between two reports when the usage did not change (timing.nodeStatusReportMs). */
  reportMs: number;
  logger: Logger;
}

/** What a usage report is worth sending for: its quantities, not the time and window of its sample. */
const usageFingerprint = (body: NodeUsage): string => JSON.stringify([body.node, body.pods]);

/**
 * [SYNC-22] Samples the node's usage at once and every intervalMs, and sends a sample as a
 * `usage` report while connected, as the node status goes: the first after each connect (and
 * answer to a hello), then only when it changed, and at least every reportMs. Not acked, and never queued: the next one
 * supersedes it. Sampling goes on while offline, so the first report after a reconnect has a
 * rate. Returns the function that stops it.
 */
export function startUsageReports(deps: UsageReportsDeps): () => void {
  const reports = new ReportGate(deps.reportMs);
  let busy = false;
  const tick = async (): Promise<void> => {
    if (busy) return; // a slow /proc read: skip a beat rather than pile up
    busy = true;
    try {
      const body = await deps.collect();
      if (deps.isConnected() && reports.due(usageFingerprint(body), deps.clock.now())) {
        await deps.send({ type: 'usage', body }).catch((err: unknown) => {
          reports.forget(); // not sent: the next sample goes
          throw err;
        });
      }
    } catch (err) {
      deps.logger.info('usage not reported', { error: (err as Error).message });
    } finally {
      busy = false;
    }
  };
  const subscription = deps.resets$.subscribe(() => reports.forget());
  void tick();
  const cancel = deps.clock.setRepeating(deps.intervalMs, () => void tick());
  return () => {
    cancel();
    subscription.unsubscribe();
  };
}

/** This process's own use: its CPU time (user and system) and resident memory. */
export function ownProcess(): Measured {
  const cpu = process.cpuUsage();
  return { cpuNs: (cpu.user + cpu.system) * 1000, memoryBytes: process.memoryUsage.rss() };
}
