import { describe, expect, it } from 'vitest';
import { defaultTiming, scaleTiming } from './timing.js';

describe('scaleTiming', () => {
  it('divides every interval by the scale', () => {
    const fast = scaleTiming(defaultTiming, 10);
    expect(fast.nodeMonitorGraceMs).toBe(4_000);
    expect(fast.nodeStatusIntervalMs).toBe(1_000);
  });

  it('rejects a non-positive scale', () => {
    expect(() => scaleTiming(defaultTiming, 0)).toThrow(RangeError);
  });
});
