import type { OutboxEntry } from '../metamanager/local-cache.js';

/** The default of how many pod statuses the edge sends per timing.statusResendMs window. */
export const DEFAULT_STATUS_FLUSH_BATCH = 1000;

/** The last send of a uid's status (or of an event) in this session. */
export interface LastSend {
  version: number;
  at: number;
  /** How often this version was sent in this session. */
  tries: number;
}

export interface StatusPlanInput {
  /** The outbox, oldest first. */
  outbox: readonly OutboxEntry[];
  /** uid → the last send of its status in this session. */
  lastSend: ReadonlyMap<string, LastSend>;
  /** When statuses were sent, in any session (the rate limit outlives reconnects). */
  sentAt: readonly number[];
  now: number;
  /** timing.statusResendMs: the rate window. */
  windowMs: number;
  /** At most this many sends in any window of windowMs. */
  batch: number;
  /** How long after its `tries`-th send an unacked status goes out again (ack-timeout.ts). */
  resendAfterMs(tries: number): number;
}

/**
 * Which outbox entries to send now, as a pure function: those never sent in this session
 * (oldest first), then those whose ack is overdue (resendAfterMs), as many as the window
 * still allows. A reconnect after a long partition thus drains the backlog at `batch` per
 * window, and re-sends never starve statuses not yet sent.
 */
export function planStatusSends(input: StatusPlanInput): OutboxEntry[] {
  const { outbox, lastSend, now, windowMs, resendAfterMs } = input;
  const budget = input.batch - input.sentAt.filter((t) => t > now - windowMs).length;
  if (budget <= 0) return [];
  const fresh: OutboxEntry[] = [];
  const due: OutboxEntry[] = [];
  for (const entry of outbox) {
    const last = lastSend.get(entry.ref.uid);
    if (!last || last.version !== entry.version) fresh.push(entry);
    else if (now - last.at >= resendAfterMs(last.tries)) due.push(entry);
  }
  return [...fresh, ...due].slice(0, budget);
}

/** The send times still inside the window at `now` (older ones no longer count). */
export function recentSends(sentAt: readonly number[], now: number, windowMs: number): number[] {
  return sentAt.filter((t) => t > now - windowMs);
}
