import type { LaneProfile } from './profile.js';

/** A chunk is cut into segments of this many bytes; loss is drawn per segment. */
export const MTU = 1500;
/** TCP's floor for the retransmission timeout (Linux's TCP_RTO_MIN). */
export const MIN_RTO_MS = 200;
/** A segment lost this many times in a row gets through on the next try (bounds the delay). */
export const MAX_RETRANSMITS = 6;

/** When a chunk arrives at the far end, and what it cost on the way. */
export interface Admission {
  deliverAt: number;
  /** Segments lost (and retransmitted), counting each loss of the same segment. */
  lostSegments: number;
}

/**
 * TCP's retransmission timeout for this link: smoothed RTT + 4 × its variation (RFC 6298), with
 * the round trip twice the one-way latency and its variation the jitter; never under 200 ms.
 */
export function retransmitTimeoutMs(p: LaneProfile): number {
  return Math.max(MIN_RTO_MS, 2 * p.latencyMs + 4 * p.jitterMs);
}

/** Extra delay of one segment: a timeout per loss, doubling each time (exponential backoff). */
function segmentDelay(p: LaneProfile, random: () => number): { delayMs: number; lost: number } {
  let rto = retransmitTimeoutMs(p);
  let delayMs = 0;
  let lost = 0;
  while (lost < MAX_RETRANSMITS && random() * 100 < p.lossPercent) {
    delayMs += rto;
    rto *= 2;
    lost++;
  }
  return { delayMs, lost };
}

/**
 * The timing of one direction of a link, pure: each chunk is serialised at the rate cap after
 * those before it (a FIFO), then travels latency ± jitter, plus a retransmission timeout per lost
 * segment (head-of-line blocking: the chunk waits for its slowest segment). Deliveries never
 * overtake one another. Times are the caller's clock's milliseconds.
 */
export class LaneTiming {
  /** When the last byte accepted so far has been serialised onto the link. */
  private busyUntil = -Infinity;
  private lastDeliverAt = -Infinity;

  constructor(
    private profile: LaneProfile,
    private readonly random: () => number,
  ) {}

  setProfile(profile: LaneProfile): void {
    this.profile = profile;
  }

  admit(now: number, bytes: number): Admission {
    const p = this.profile;
    let extraMs = 0;
    let lostSegments = 0;
    let lostBytes = 0;
    if (p.lossPercent > 0) {
      for (let offset = 0; offset < bytes; offset += MTU) {
        const segment = segmentDelay(p, this.random);
        extraMs = Math.max(extraMs, segment.delayMs);
        lostSegments += segment.lost;
        lostBytes += segment.lost * Math.min(MTU, bytes - offset);
      }
    }
    let sentAt = now;
    if (p.rateBps > 0) {
      // Retransmitted segments cross the link again, so they take their share of the rate.
      sentAt = Math.max(now, this.busyUntil) + ((bytes + lostBytes) * 8000) / p.rateBps;
      this.busyUntil = sentAt;
    }
    const jitter = p.jitterMs > 0 ? (this.random() * 2 - 1) * p.jitterMs : 0;
    const deliverAt = Math.max(this.lastDeliverAt, sentAt + Math.max(0, p.latencyMs + jitter) + extraMs);
    this.lastDeliverAt = deliverAt;
    return { deliverAt, lostSegments };
  }

  /** Bytes accepted but not yet serialised onto the link at `now` (the rate cap's queue). */
  backlog(now: number): number {
    const rate = this.profile.rateBps;
    return rate > 0 && this.busyUntil > now ? ((this.busyUntil - now) * rate) / 8000 : 0;
  }

  /** When the backlog will have drained to `bytes` (now, when it already has). */
  backlogDrainsTo(now: number, bytes: number): number {
    const rate = this.profile.rateBps;
    if (rate <= 0) return now;
    return Math.max(now, this.busyUntil - (bytes * 8000) / rate);
  }
}
