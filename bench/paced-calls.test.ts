import { describe, expect, it } from 'vitest';
import { pacedCalls } from './paced-calls.js';

describe('paced calls', () => {
  it('makes every call once, with no more than inFlight open, and times each', async () => {
    const seen: number[] = [];
    let open = 0;
    let most = 0;
    const latencies = await pacedCalls(10, 3, async (i) => {
      most = Math.max(most, ++open);
      seen.push(i);
      await new Promise((resolve) => setImmediate(resolve));
      open--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
    expect(latencies).toHaveLength(10);
    expect(latencies.every((ms) => ms >= 0)).toBe(true);
  });
});
