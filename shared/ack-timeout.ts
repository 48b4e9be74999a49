/**
 * How long a sender waits for an ack before sending a message again, learnt from the acks
 * themselves as TCP learns its retransmission timeout (RFC 6298): a smoothed round trip plus
 * four times its variation, never under `minMs`, doubling with each try up to `maxMs`. A busy
 * peer, or a slow link, that acks in 5 s is then not sent everything two or three times, which
 * would only fill the link further. Only the ack of a message sent once is a sample (Karn's
 * rule): the ack of a re-sent one may answer either send. Used by the edge (statuses, events)
 * and by the cloud's hub (objects down to a node).
 */
export class AckTimeout {
  private smoothed: number | undefined;
  private variation = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** The peer acked, `roundTripMs` after the only send of what it acks. */
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
