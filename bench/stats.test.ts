import { describe, expect, it } from 'vitest';
import { compareRounds, median, medianDifferenceP, percentile } from './stats.js';

describe('bench statistics', () => {
  it('takes percentiles by rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 99)).toBe(5);
    expect(median([5, 1, 3, 2, 4])).toBe(3);
  });

  it('finds separated groups beyond noise and overlapping ones within it', () => {
    // Only splits keeping most of each group together differ as much: 20 of the C(12,6) = 924.
    expect(medianDifferenceP([1, 2, 3, 4, 5, 6], [11, 12, 13, 14, 15, 16])).toBeCloseTo(20 / 924, 6);
    expect(medianDifferenceP([1565, 1048, 2126, 1700, 1300, 1900], [1384, 1924, 2070, 1500, 1200, 1800])).toBeGreaterThan(0.5);
  });

  it('says nothing for empty or too many values', () => {
    expect(medianDifferenceP([], [1])).toBeNaN();
    expect(medianDifferenceP(Array(11).fill(1), Array(11).fill(2))).toBeNaN();
  });

  it('compares interleaved rounds by their medians and by the median ratio within a round', () => {
    // Round 2 is slow for both (background load): the per-round ratio is steadier than the medians'.
    const c = compareRounds([1000, 400, 1100, 900, 1050], [500, 200, 560, 300, 525]);
    expect(c).toMatchObject({ baseline: 1000, contender: 500, ratio: 0.5, medianRoundRatio: 0.5 });
    expect(compareRounds([1000, 1020, 1100, 900, 1050], [500, 480, 560, 450, 525]).p).toBeLessThan(0.05);
    expect(compareRounds([10, 12, 11], [11, 10, 12])).toMatchObject({ ratio: 1, p: 1 });
  });

  it('refuses rounds that do not pair up', () => {
    expect(() => compareRounds([1, 2], [1])).toThrow(/differ in number/);
    expect(() => compareRounds([], [])).toThrow();
  });
});
