import type { OutboxEntry } from '../metamanager/local-cache.js';

/** The default of how many pod statuses the edge sends per timing.statusResendMs window. */
export const DEFAULT_STATUS_FLUSH_BATCH = 1000;

/** The last send of a uid's status in this session. */
export interface LastSend {
  version: number;
  at: number;
}

export interface StatusPlanInput {
  /** The outbox, oldest first. */
  outbox: OutboxEntry[];
  /** uid → the last send of its status in this session. */
  lastSend: ReadonlyMap<string, LastSend>;
  /** When statuses were sent, in any session (the rate limit outlives reconnects). */
  sentAt: readonly number[];
  now: number;
  /** timing.statusResendMs: the resend delay and the rate window. */
  windowMs: number;
  /** At most this many sends in any window of windowMs. */
  batch: number;
}

/**
 * Which outbox entries to send now, as a pure function: those never sent in this session
 * (oldest first), then those whose last send is older than windowMs, as many as the window
 * still allows. A reconnect after a long partition thus drains the backlog at `batch` per
 * window, and re-sends never starve statuses not yet sent.
 */
export function planStatusSends(input: StatusPlanInput): OutboxEntry[] {
  const { outbox, lastSend, now, windowMs } = input;
  const budget = input.batch - input.sentAt.filter((t) => t > now - windowMs).length;
  if (budget <= 0) return [];
  const fresh: OutboxEntry[] = [];
  const due: OutboxEntry[] = [];
  for (const entry of outbox) {
    const last = lastSend.get(entry.ref.uid);
    if (!last || last.version !== entry.version) fresh.push(entry);
    else if (now - last.at >= windowMs) due.push(entry);
  }
  return [...fresh, ...due].slice(0, budget);
}

/** The send times still inside the window at `now` (older ones no longer count). */
export function recentSends(sentAt: readonly number[], now: number, windowMs: number): number[] {
  return sentAt.filter((t) => t > now - windowMs);
}
