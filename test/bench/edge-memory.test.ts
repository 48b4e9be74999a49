import { afterEach, describe, expect, it, vi } from 'vitest';
import { perItemKiB, settledMemory } from '../../bench/edge-memory.js';

describe('perItemKiB', () => {
  const idle = { heapUsedMiB: 100, rssMiB: 150 };

  it.each([
    { loaded: { heapUsedMiB: 110, rssMiB: 170 }, count: 1000, want: { heapKiB: 10.24, rssKiB: 20.48 } },
    { loaded: { heapUsedMiB: 100, rssMiB: 150 }, count: 1000, want: { heapKiB: 0, rssKiB: 0 } },
    // RSS can shrink when the allocator hands pages back: the figure says so rather than hiding it.
    { loaded: { heapUsedMiB: 101, rssMiB: 149 }, count: 2, want: { heapKiB: 512, rssKiB: -512 } },
  ])('spreads the growth over $count items', ({ loaded, count, want }) => {
    expect(perItemKiB(idle, loaded, count)).toEqual(want);
  });

  it.each([0, -1, 1.5, NaN])('rejects a count of %s', (count) => {
    expect(() => perItemKiB(idle, idle, count)).toThrow(/count must be a positive integer/);
  });
});

describe('settledMemory', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('collects twice per round and reports this process in MiB', async () => {
    const gc = vi.fn();
    vi.stubGlobal('gc', gc);
    const sample = await settledMemory(2);
    expect(gc).toHaveBeenCalledTimes(4);
    expect(sample.heapUsedMiB).toBeGreaterThan(1);
    expect(sample.rssMiB).toBeGreaterThan(sample.heapUsedMiB);
  });

  it('says it needs --expose-gc when there is no gc', async () => {
    vi.stubGlobal('gc', undefined);
    await expect(settledMemory()).rejects.toThrow(/--expose-gc/);
  });
});
