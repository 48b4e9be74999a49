import { describe, expect, it } from 'vitest';
import { heapGrowthFlag } from './heap-growth.js';

describe('the cloud heap growth', () => {
  it("is V8's heap growing percent, and 0 leaves V8 its own", () => {
    expect(heapGrowthFlag(50)).toBe('--heap-growing-percent=50');
    expect(heapGrowthFlag(12.6)).toBe('--heap-growing-percent=13');
    expect(heapGrowthFlag(0)).toBeUndefined();
  });
});
