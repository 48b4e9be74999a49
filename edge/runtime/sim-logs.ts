import type { ContainerInfo, LogLine } from './runtime.js';

/** A simulated container says it is alive this often, so its log grows while it runs. */
export const SIM_LOG_PERIOD_MS = 60_000;
/** The most lines a simulated log keeps (the oldest go first). */
export const SIM_LOG_MAX_LINES = 1_000;

/**
 * A sim container's log, derived purely from its state at `now`: a line when it started, one
 * per SIM_LOG_PERIOD_MS while it ran, and one when it exited. No state of its own, so it
 * survives edge restarts exactly as the container does.
 */
export function simLogLines(c: ContainerInfo, now: number): LogLine[] {
  if (c.startedAt === undefined) return [];
  const lines: LogLine[] = [{ time: c.startedAt, text: `[kedge sim] ${c.name}: started (image ${c.image}, attempt ${c.attempt})` }];
  const until = Math.min(now, c.finishedAt ?? Infinity);
  const periods = Math.floor((until - c.startedAt) / SIM_LOG_PERIOD_MS);
  const first = Math.max(1, periods - SIM_LOG_MAX_LINES + 2);
  for (let i = first; i <= periods; i++) {
    lines.push({ time: c.startedAt + i * SIM_LOG_PERIOD_MS, text: `[kedge sim] ${c.name}: running for ${i}m` });
  }
  if (c.finishedAt !== undefined && c.finishedAt <= now) {
    const why = c.reason ? ` (${c.reason})` : '';
    lines.push({ time: c.finishedAt, text: `[kedge sim] ${c.name}: exited with code ${c.exitCode ?? 0}${why}` });
  }
  return lines.slice(-SIM_LOG_MAX_LINES);
}
