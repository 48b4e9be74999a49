import { describe, expect, it } from 'vitest';
import { quantityMilliValue, quantityValue } from '../../cloud/scheduler/quantity.js';

describe('quantity', () => {
  it.each([
    ['100m', 100, 1],
    ['2', 2000, 2],
    ['0.5', 500, 1],
    ['.1', 100, 1],
    ['1.', 1000, 1],
    ['0.1', 100, 1],
    ['1500m', 1500, 2],
    ['1m', 1, 1],
    ['0.0001', 1, 1],
    ['250u', 1, 1],
    ['0', 0, 0],
    ['128Mi', 128 * 2 ** 20 * 1000, 128 * 2 ** 20],
    ['1Gi', 2 ** 30 * 1000, 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30 * 1000, 1.5 * 2 ** 30],
    ['8Ki', 8192 * 1000, 8192],
    ['500M', 5e8 * 1000, 5e8],
    ['1k', 1e6, 1000],
    ['2G', 2e12, 2e9],
    ['1e3', 1e6, 1000],
    ['1E-3', 1, 1],
    ['134217728', 134217728000, 134217728],
    ['+3', 3000, 3],
    ['-2', -2000, -2],
  ])('%s is %d milli, %d units', (text, milli, value) => {
    expect(quantityMilliValue(text)).toBe(milli);
    expect(quantityValue(text)).toBe(value);
  });

  it.each(['', 'abc', '1x', '1 Gi', 'Mi', '1.2.3', '1mi', '1KiB', '--1', '1e'])('%j is not a quantity', (text) => {
    expect(quantityValue(text)).toBeUndefined();
    expect(quantityMilliValue(text)).toBeUndefined();
  });
});
