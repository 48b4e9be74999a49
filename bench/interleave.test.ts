import { describe, expect, it } from 'vitest';
import { interleavedRounds, roundOrder } from './interleave.js';

describe('interleaved rounds', () => {
  it('rotates which contender goes first', () => {
    expect([0, 1, 2, 3].map((r) => roundOrder(3, r))).toEqual([[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]);
  });

  it('runs one contender at a time and files each result under its contender and round', async () => {
    const ran: string[] = [];
    let open = 0;
    const results = await interleavedRounds(2, 2, async (c, r) => {
      expect(open++).toBe(0);
      await Promise.resolve();
      open--;
      ran.push(`${c}:${r}`);
      return c * 10 + r;
    });
    expect(ran).toEqual(['0:0', '1:0', '1:1', '0:1']);
    expect(results).toEqual([[0, 1], [10, 11]]);
  });
});
