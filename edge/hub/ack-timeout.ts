import { AckTimeout } from '../../shared/ack-timeout.js';
import type { Timing } from '../../shared/timing.js';

/** An unacked message waits at most this many statusResendMs windows before it goes out again. */
export const MAX_RESEND_WINDOWS = 16;

/**
 * The edge's ack timeout for statuses and events (shared/ack-timeout.ts): statusResendMs at
 * least, 16 of them at most. A busy cloud that acks in 5 s is then not sent everything again.
 */
export const ackTimeoutFor = (timing: Pick<Timing, 'statusResendMs'>): AckTimeout => new AckTimeout(timing.statusResendMs, MAX_RESEND_WINDOWS * timing.statusResendMs);
