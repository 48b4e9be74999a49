import type { Timing } from '../../shared/timing.js';

/**
 * How long the edge waits for the cloud's ack before sending a status or an event again,
 * learnt from the acks themselves as TCP learns its retransmission timeout (RFC 6298): a
 * smoothed round trip plus four times its variation, never under `minMs` (timing.statusResendMs),
 * doubling with each try up to `maxMs`. A busy cloud that acks in 5 s is then not sent
 * everything two or three times, which would only make it busier. Only the ack of a message
 * sent once is a sample (Karn's rule): the ack of a re-sent one may answer either send.
 */
export class AckTimeout {
  private smoothed: number | undefined;
  private variation = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** The cloud acked, `roundTripMs` after the only send of what it acks. */
  observe(roundTripMs: number): void {
    if (this.smoothed === undefined) {
      this.smoothed = roundTripMs;
      this.variation = roundTripMs / 2;
      return;
    }
    this.variation = 0.75 * this.variation + 0.25 * Math.abs(this.smoothed - roundTripMs);
    this.smoothed = 0.875 * this.smoothed + 0.125 * roundTripMs;
  }

  /** How long after its `tries`-th send an unacked message goes out again. */
  resendAfterMs(tries: number): number {
    const base = this.smoothed === undefined ? this.minMs : Math.max(this.minMs, this.smoothed + 4 * this.variation);
    return Math.min(this.maxMs, base * 2 ** Math.max(0, tries - 1));
  }
}

/** An unacked message waits at most this many statusResendMs windows before it goes out again. */
export const MAX_RESEND_WINDOWS = 16;

/** The edge's ack timeout for statuses and events: statusResendMs at least, 16 of them at most. */
export const ackTimeoutFor = (timing: Pick<Timing, 'statusResendMs'>): AckTimeout => new AckTimeout(timing.statusResendMs, MAX_RESEND_WINDOWS * timing.statusResendMs);
