import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { groupUsages } from '../cri/process-usage.js';
import type { Runtime } from '../runtime/runtime.js';
import { UsageCollector } from './usage-collector.js';
import { ownProcess, startUsageReports } from './usage-reports.js';

/**
 * What an edge reports of its usage (EdgeOptions.usage): 'measured' (process pods and the edge
 * process from /proc, simulated pods from their annotation), 'simulated' (every pod as
 * simulated, the edge process left out: hollow fleets, whose edges share one process), 'off'.
 */
export type UsageMode = 'measured' | 'simulated' | 'off';

export interface NodeUsageDeps {
  runtime: Runtime;
  pods: () => Pod[];
  isConnected: () => boolean;
  /** See UsageReportsDeps.resets$. */
  resets$: Observable<unknown>;
  send: (draft: UpDraft) => Promise<string>;
  clock: Clock;
  timing: Timing;
  logger: Logger;
}

/** Starts the node's usage reports as `mode` says; returns the function that stops them. */
export function startNodeUsage(mode: UsageMode, deps: NodeUsageDeps): () => void {
  if (mode === 'off') return () => {};
  const { timing, clock } = deps;
  const measured = mode === 'measured' ? { readGroups: groupUsages, self: ownProcess } : {};
  const collector = new UsageCollector({ runtime: deps.runtime, pods: deps.pods, clock, resolutionMs: timing.metricsResolutionMs, ...measured });
  return startUsageReports({ collect: () => collector.collect(), isConnected: deps.isConnected, resets$: deps.resets$, send: deps.send, clock, intervalMs: timing.metricsResolutionMs, reportMs: timing.nodeStatusReportMs, logger: deps.logger });
}
