import { describe, expect, it } from 'vitest';
import { defaultTiming, scaledMs, scaleTiming } from './timing.js';

describe('scaleTiming', () => {
  it('divides every interval by the scale', () => {
    const fast = scaleTiming(defaultTiming, 10);
    expect(fast.nodeMonitorGraceMs).toBe(4_000);
    expect(fast.nodeStatusIntervalMs).toBe(1_000);
    expect(fast.timeScale).toBe(10);
    expect(scaleTiming(fast, 2).timeScale).toBe(20);
  });

  it('turns durations written in objects into scaled milliseconds', () => {
    expect(scaledMs(defaultTiming, 300)).toBe(300_000);
    expect(scaledMs(scaleTiming(defaultTiming, 10), 300)).toBe(30_000);
  });

  it('rejects a non-positive scale', () => {
    expect(() => scaleTiming(defaultTiming, 0)).toThrow(RangeError);
  });
});
