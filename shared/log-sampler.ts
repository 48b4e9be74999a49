import type { Clock } from './clock.js';

/** A flood of one kind is logged once at first, then at most once per this interval. */
export const LOG_SAMPLE_INTERVAL_MS = 10_000;

/**
 * Decides which occurrences of a kind of event are worth a log line: the first one, then the
 * first one after each interval. The line it allows says how many went unlogged before it.
 * Holds one entry per kind, so kinds must come from a fixed set (reasons, not messages).
 */
export class LogSampler {
  private readonly kinds = new Map<string, { loggedAt: number; unlogged: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs = LOG_SAMPLE_INTERVAL_MS,
  ) {}

  /** Undefined when this occurrence goes unlogged; else how many of its kind went unlogged since the last line. */
  sample(kind: string): number | undefined {
    const now = this.clock.now();
    const seen = this.kinds.get(kind);
    if (seen && now - seen.loggedAt < this.intervalMs) {
      seen.unlogged++;
      return undefined;
    }
    this.kinds.set(kind, { loggedAt: now, unlogged: 0 });
    return seen?.unlogged ?? 0;
  }
}

/** The log fields that say how many went unlogged: none when nothing did. */
export function unloggedFields(unlogged: number): Record<string, number> {
  return unlogged > 0 ? { moreSinceLastLine: unlogged } : {};
}
