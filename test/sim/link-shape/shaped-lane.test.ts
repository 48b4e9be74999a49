import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { MTU } from '../../../sim/link-shape/lane-timing.js';
import type { LaneProfile } from '../../../sim/link-shape/profile.js';
import { emptyShapeCounters, queueLimit, ShapedLane, WINDOW_BYTES } from '../../../sim/link-shape/shaped-lane.js';

const plain: LaneProfile = { latencyMs: 0, jitterMs: 0, lossPercent: 0, rateBps: 0 };

/** A lane on a fake clock that records when each chunk is delivered and when the sender is held. */
function lane(profile: LaneProfile, random: () => number = () => 0.999) {
  const clock = new FakeClock(0);
  const delivered: { at: number; text: string }[] = [];
  const fullness: { at: number; full: boolean }[] = [];
  const counters = emptyShapeCounters();
  let up = true;
  const shaped = new ShapedLane(profile, {
    clock,
    random,
    counters,
    deliver: (chunk) => delivered.push({ at: clock.now(), text: chunk.toString() }),
    canDeliver: () => up,
    onFull: (full) => fullness.push({ at: clock.now(), full }),
  });
  const setUp = (value: boolean): void => {
    up = value;
  };
  return { clock, shaped, delivered, fullness, counters, setUp };
}

describe('ShapedLane', () => {
  it('delivers each chunk after the latency, in order, on the clock', async () => {
    const { clock, shaped, delivered, counters } = lane({ ...plain, latencyMs: 300 });
    shaped.push(Buffer.from('a'));
    await clock.advance(100);
    shaped.push(Buffer.from('b'));
    expect(shaped.queuedBytes).toBe(2);
    await clock.advance(199);
    expect(delivered).toEqual([]);
    await clock.advance(1);
    expect(delivered).toEqual([{ at: 300, text: 'a' }]);
    await clock.advance(100);
    expect(delivered).toEqual([
      { at: 300, text: 'a' },
      { at: 400, text: 'b' },
    ]);
    expect(counters).toEqual({ delayedChunks: 2, delayedBytes: 2, droppedSegments: 0 });
    expect(shaped.queuedBytes).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('a rate cap: bytes arrive at the rate (bytes / time)', async () => {
    const { clock, shaped, delivered } = lane({ ...plain, rateBps: 80_000 }); // 10,000 bytes/s
    for (let i = 0; i < 10; i++) shaped.push(Buffer.alloc(500, 'x'));
    await clock.advance(10_000);
    expect(delivered.map((d) => d.at)).toEqual([50, 100, 150, 200, 250, 300, 350, 400, 450, 500]);
  });

  it('a lost segment: the chunk (and the one behind it) waits for the retransmission', async () => {
    const draws = [0.001, 0.9, 0.9]; // the first segment is lost once
    const { clock, shaped, delivered, counters } = lane({ ...plain, latencyMs: 50, lossPercent: 1 }, () => draws.shift() ?? 0.9);
    shaped.push(Buffer.from('first'));
    shaped.push(Buffer.from('second'));
    await clock.advance(5000);
    // RTO = max(200, 2 × 50) = 200 ms.
    expect(delivered).toEqual([
      { at: 250, text: 'first' },
      { at: 250, text: 'second' },
    ]);
    expect(counters.droppedSegments).toBe(1);
  });

  it('a full queue holds the sender (backpressure) until it has drained to half; no byte is dropped', async () => {
    const rateBps = 16 * MTU * 8; // the queue holds 16 segments = one second
    const { clock, shaped, delivered, fullness } = lane({ ...plain, rateBps });
    expect(queueLimit(rateBps)).toBe(16 * MTU);
    for (let i = 0; i < 15; i++) shaped.push(Buffer.alloc(MTU, i));
    expect(fullness).toEqual([]);
    shaped.push(Buffer.alloc(MTU, 15));
    expect(fullness).toEqual([{ at: 0, full: true }]);
    shaped.push(Buffer.alloc(MTU, 16)); // a sender that keeps writing still gets through, later
    await clock.advance(1000);
    expect(fullness).toEqual([
      { at: 0, full: true },
      { at: 562.5, full: false }, // 17 segments queued: down to 8 after 9 of them (9/16 s)
    ]);
    await clock.advance(1000);
    expect(delivered.map((d) => d.text[0]!.charCodeAt(0))).toEqual(Array.from({ length: 17 }, (_, i) => i));
  });

  it('without a rate cap, bytes on their way past the window hold the sender', async () => {
    const { clock, shaped, fullness } = lane({ ...plain, latencyMs: 100 });
    shaped.push(Buffer.alloc(WINDOW_BYTES));
    expect(fullness).toEqual([{ at: 0, full: true }]);
    await clock.advance(100);
    expect(fullness).toEqual([
      { at: 0, full: true },
      { at: 100, full: false },
    ]);
  });

  it('while the cable is out nothing is delivered; kick() delivers what fell due, in order', async () => {
    const { clock, shaped, delivered, setUp } = lane({ ...plain, latencyMs: 10 });
    shaped.push(Buffer.from('a'));
    setUp(false);
    await clock.advance(50);
    shaped.push(Buffer.from('b'));
    await clock.advance(50);
    expect(delivered).toEqual([]);
    setUp(true);
    shaped.kick();
    expect(delivered).toEqual([
      { at: 100, text: 'a' },
      { at: 100, text: 'b' },
    ]);
  });

  it('takeAll() hands back what is on its way, in order, and cancels its timers', async () => {
    const { clock, shaped, delivered } = lane({ ...plain, latencyMs: 10 });
    shaped.push(Buffer.from('a'));
    shaped.push(Buffer.from('b'));
    expect(shaped.takeAll().map(String)).toEqual(['a', 'b']);
    expect(clock.pending).toBe(0);
    await clock.advance(100);
    expect(delivered).toEqual([]);
  });
});
