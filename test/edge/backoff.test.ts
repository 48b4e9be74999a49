import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../edge/coalescer.js';
import { reconnectDelay } from '../../shared/backoff.js';

describe('reconnectDelay', () => {
  it.each([
    [0, 0, 250],
    [0, 1, 500],
    [1, 1, 1000],
    [3, 0.5, 3000],
    [10, 1, 30_000],
    [10, 0, 15_000],
    [1000, 1, 30_000],
  ])('attempt %d, random %d → %d ms', (attempt, r, ms) => {
    expect(reconnectDelay(attempt, 500, 30_000, () => r)).toBe(ms);
  });
});

describe('Coalescer', () => {
  it('runs once for a burst of requests made while it runs, and everyone waits for that run', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const c = new Coalescer(async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
    });
    const first = c.run();
    const burst = [c.run(), c.run(), c.run()];
    expect(runs).toBe(1);
    release();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(runs).toBe(2);
    release();
    await Promise.all(burst);
    expect(runs).toBe(2);
  });
});
