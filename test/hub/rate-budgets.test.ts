import { describe, expect, it } from 'vitest';
import { RateBudgets, TokenBucket } from '../../cloud/hub/rate-budgets.js';
import { FakeClock } from '../../shared/clock.js';

describe('token bucket', () => {
  it('gives the burst at once, then refills at the rate', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([true, true, true, false]);
    expect(bucket.msUntil(1, 0)).toBe(100);
    expect(bucket.take(100)).toBe(true);
    expect(bucket.isFull(100)).toBe(false);
    expect(bucket.isFull(400)).toBe(true);
  });
});

describe('rate budgets per identity', () => {
  it('shares one bucket between the connections of an identity, and not across identities', () => {
    const budgets = new RateBudgets(10, 2, new FakeClock());
    const a = budgets.acquire('node/edge-1');
    const b = budgets.acquire('node/edge-1');
    expect(b.bucket).toBe(a.bucket);
    expect(budgets.acquire('node/edge-2').bucket).not.toBe(a.bucket);
  });

  it('keeps a spent bucket across a reconnect, and forgets it once unused and full again', async () => {
    const clock = new FakeClock();
    const budgets = new RateBudgets(10, 2, clock);
    const first = budgets.acquire('node/edge-1');
    first.bucket.take(clock.now());
    first.release();
    const again = budgets.acquire('node/edge-1');
    expect(again.bucket).toBe(first.bucket);
    again.release();
    for (let i = 0; i < 1000; i++) budgets.acquire(`node/n-${i}`).release();
    expect(budgets.size).toBe(1); // the unused full ones are gone at once; edge-1's is not full yet
    await clock.advance(100);
    budgets.acquire('node/other').release();
    expect(budgets.size).toBe(0);
  });
});
