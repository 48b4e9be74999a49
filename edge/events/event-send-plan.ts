import type { LastSend } from '../hub/status-plan.js';
import type { PendingEvent } from './event-outbox.js';

/** At most this many events per window (timing.statusResendMs): a reconnect after a long night drains the backlog gently. */
export const DEFAULT_EVENT_FLUSH_BATCH = 50;

/** The last send of an event's current version in this session. */
export type EventSend = LastSend;

export interface EventPlanInput {
  /** The outbox, oldest first. */
  entries: readonly PendingEvent[];
  /** name → its last send in this session. */
  lastSend: ReadonlyMap<string, EventSend>;
  /** When events went out lately (the rate limit outlives reconnects). */
  sentAt: readonly number[];
  now: number;
  /** The rate window: at most `batch` sends in any window of windowMs. */
  windowMs: number;
  batch: number;
  /** How long after its `tries`-th send an unacked event goes out again (edge/hub/ack-timeout.ts). */
  resendAfterMs(tries: number): number;
}

/**
 * Which events to send now, as a pure function: those not sent at their current version in
 * this session, oldest first, then those whose resend back-off is over, as many as the window
 * still allows.
 */
export function planEventSends(input: EventPlanInput): PendingEvent[] {
  const { lastSend, now, windowMs, resendAfterMs } = input;
  const budget = input.batch - input.sentAt.filter((t) => t > now - windowMs).length;
  if (budget <= 0) return [];
  const fresh: PendingEvent[] = [];
  const due: PendingEvent[] = [];
  for (const entry of input.entries) {
    const last = lastSend.get(entry.event.name);
    if (!last || last.version !== entry.version) fresh.push(entry);
    else if (now - last.at >= resendAfterMs(last.tries)) due.push(entry);
  }
  return [...fresh, ...due].slice(0, budget);
}
