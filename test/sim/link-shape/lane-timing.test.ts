import { describe, expect, it } from 'vitest';
import { LaneTiming, MAX_RETRANSMITS, MIN_RTO_MS, MTU, retransmitTimeoutMs } from '../../../sim/link-shape/lane-timing.js';
import type { LaneProfile } from '../../../sim/link-shape/profile.js';
import { mulberry32 } from '../../../shared/seeded-random.js';

const plain: LaneProfile = { latencyMs: 0, jitterMs: 0, lossPercent: 0, rateBps: 0 };
const never = (): number => 0.999_999;
/** Draws these values in turn (then the last one forever). */
const draws = (...values: number[]) => () => (values.length > 1 ? values.shift()! : values[0]!);

describe('LaneTiming', () => {
  it('latency: every chunk arrives that much later', () => {
    const t = new LaneTiming({ ...plain, latencyMs: 300 }, never);
    expect(t.admit(1000, 10)).toEqual({ deliverAt: 1300, lostSegments: 0 });
    expect(t.admit(1005, 10).deliverAt).toBe(1305);
  });

  it('jitter: delays spread over latency ± jitter, yet a later chunk never overtakes an earlier one', () => {
    const t = new LaneTiming({ ...plain, latencyMs: 100, jitterMs: 50 }, mulberry32(7));
    const delivered = Array.from({ length: 200 }, (_, i) => t.admit(i, 100).deliverAt);
    for (let i = 1; i < delivered.length; i++) expect(delivered[i]!).toBeGreaterThanOrEqual(delivered[i - 1]!);
    const delays = delivered.map((at, i) => at - i);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...delays)).toBeLessThanOrEqual(150);
    expect(new Set(delays).size).toBeGreaterThan(50);
  });

  it('a rate cap serialises bytes: 64 kbit/s carries 8000 bytes a second, one chunk after another', () => {
    const t = new LaneTiming({ ...plain, rateBps: 64_000 }, never);
    expect(t.admit(0, 8000).deliverAt).toBe(1000);
    expect(t.backlog(0)).toBe(8000);
    expect(t.admit(0, 4000).deliverAt).toBe(1500); // queued behind the first
    expect(t.backlog(1000)).toBe(4000);
    expect(t.backlogDrainsTo(1000, 2000)).toBe(1250);
    expect(t.admit(5000, 800).deliverAt).toBe(5100); // an idle link starts at once
    expect(t.backlog(6000)).toBe(0);
  });

  it("rate + latency: 50 chunks of 1000 bytes at 256 kbit/s take 50 × 31.25 ms to send, then 300 ms to arrive", () => {
    const t = new LaneTiming({ ...plain, latencyMs: 300, rateBps: 256_000 }, never);
    let last = 0;
    for (let i = 0; i < 50; i++) last = t.admit(0, 1000).deliverAt;
    expect(last).toBeCloseTo(50 * 31.25 + 300, 6);
  });

  it("retransmission timeout: RTT + 4 × jitter, at least TCP's 200 ms", () => {
    expect(retransmitTimeoutMs({ ...plain, latencyMs: 300, jitterMs: 20 })).toBe(680);
    expect(retransmitTimeoutMs({ ...plain, latencyMs: 5 })).toBe(MIN_RTO_MS);
  });

  it('a lost segment arrives one timeout late; lost again, the timeout doubles', () => {
    const p = { ...plain, latencyMs: 300, lossPercent: 2 };
    const rto = retransmitTimeoutMs(p); // 600
    // 0.5 % < 2 %: lost; 50 %: through.
    expect(new LaneTiming(p, draws(0.005, 0.5)).admit(0, 100)).toEqual({ deliverAt: 300 + rto, lostSegments: 1 });
    expect(new LaneTiming(p, draws(0.005, 0.005, 0.5)).admit(0, 100)).toEqual({ deliverAt: 300 + rto + 2 * rto, lostSegments: 2 });
  });

  it('head-of-line blocking: a chunk waits for its slowest segment, and the chunks behind it wait too', () => {
    const p = { ...plain, latencyMs: 10, lossPercent: 10 };
    // Three segments (3 × MTU bytes): the second is lost once.
    const t = new LaneTiming(p, draws(0.5, 0.01, 0.5, 0.5));
    expect(t.admit(0, 3 * MTU)).toEqual({ deliverAt: 10 + MIN_RTO_MS, lostSegments: 1 });
    expect(t.admit(1, 10).deliverAt).toBe(10 + MIN_RTO_MS);
  });

  it('a segment lost every time still arrives after the last retransmission (a bounded delay)', () => {
    const t = new LaneTiming({ ...plain, lossPercent: 50 }, () => 0);
    const { deliverAt, lostSegments } = t.admit(0, 1);
    expect(lostSegments).toBe(MAX_RETRANSMITS);
    expect(deliverAt).toBe(MIN_RTO_MS * (2 ** MAX_RETRANSMITS - 1));
  });

  it('retransmitted bytes take their share of the rate cap', () => {
    const t = new LaneTiming({ ...plain, rateBps: 8000, lossPercent: 10 }, draws(0.01, 0.5));
    // 1000 bytes sent twice at 1000 bytes/s: 2 s on the wire, plus the timeout.
    expect(t.admit(0, 1000).deliverAt).toBe(2000 + MIN_RTO_MS);
  });

  it('the same seed gives the same delays', () => {
    const run = (seed: number) => {
      const t = new LaneTiming({ latencyMs: 50, jitterMs: 20, lossPercent: 5, rateBps: 0 }, mulberry32(seed));
      return Array.from({ length: 50 }, (_, i) => t.admit(i * 10, 3000).deliverAt);
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
  });
});
