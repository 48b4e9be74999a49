import type { Timing } from '../../shared/timing.js';

/** client-go's leaderelection.JitterFactor: an acquirer waits retryPeriod plus up to 1.2 times it again. */
export const JITTER_FACTOR = 1.2;

export type ElectionTiming = Pick<Timing, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'timeScale'>;

/**
 * Why these timings cannot elect, in client-go's words (NewLeaderElector), or undefined when
 * they can: leaseDuration > renewDeadline > JitterFactor × retryPeriod, all positive.
 */
export function electionTimingError(t: Pick<Timing, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'>): string | undefined {
  if (t.leaseDurationMs <= t.renewDeadlineMs) return 'leaseDuration must be greater than renewDeadline';
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs) return 'renewDeadline must be greater than retryPeriod*JitterFactor';
  if (t.leaseDurationMs < 1) return 'leaseDuration must be greater than zero';
  if (t.renewDeadlineMs < 1) return 'renewDeadline must be greater than zero';
  if (t.retryPeriodMs < 1) return 'retryPeriod must be greater than zero';
  return undefined;
}

/** An acquirer's wait between tries (wait.Jitter): retryPeriod plus a random share of JitterFactor × retryPeriod. */
export function jitteredRetryMs(retryPeriodMs: number, random: () => number): number {
  return retryPeriodMs + random() * JITTER_FACTOR * retryPeriodMs;
}

/**
 * The leaseDurationSeconds a holder writes: real seconds, as durations in objects are (a time-scaled
 * cloud writes 15 for its 1.5 s at scale 10, and readers scale it back). At least 1.
 */
export function leaseDurationSeconds(t: ElectionTiming): number {
  return Math.max(1, Math.round((t.leaseDurationMs * t.timeScale) / 1000));
}
