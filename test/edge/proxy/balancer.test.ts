import { describe, expect, it } from 'vitest';
import { Balancer, shuffled } from '../../../edge/network/proxy/balancer.js';
import { FakeClock } from '../../../shared/clock.js';
import { mulberry32 } from '../../support/random.js';

const picks = (b: Balancer, n: number, client = '127.0.0.9'): string[] => Array.from({ length: n }, () => b.next(client)!);

describe('Balancer (userspace kube-proxy LoadBalancerRR)', () => {
  it('round robin over every endpoint, in a shuffled order', () => {
    const b = new Balancer(new FakeClock(), mulberry32(1));
    b.update(['a', 'b', 'c'], undefined);
    const first = picks(b, 3);
    expect([...first].sort()).toEqual(['a', 'b', 'c']);
    expect(picks(b, 3)).toEqual(first);
  });

  it('shuffles again and restarts at the first when the set changes; the same set in another order changes nothing', () => {
    const b = new Balancer(new FakeClock(), () => 0); // Fisher-Yates with 0: a, b, c → b, c, a
    b.update(['a', 'b', 'c'], undefined);
    expect(picks(b, 1)).toEqual(['b']);
    b.update(['c', 'b', 'a'], undefined);
    expect(picks(b, 1)).toEqual(['c']);
    b.update(['a', 'b', 'c', 'd'], undefined); // → b, c, d, a, from its start
    expect(picks(b, 4)).toEqual(['b', 'c', 'd', 'a']);
  });

  it('ClientIP affinity entries expire (dropped on the next pick) and are capped, the least recently used out first', async () => {
    const clock = new FakeClock();
    const b = new Balancer(clock, () => 0, 3);
    b.update(['a', 'b'], 1000);
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) b.next(ip);
    b.next('10.0.0.1'); // used again: the newest
    b.next('10.0.0.4'); // over the cap: 10.0.0.2 goes
    expect(b.affinityCount()).toBe(3);
    const held = b.next('10.0.0.3');
    expect(b.next('10.0.0.3')).toBe(held);
    await clock.advance(1000);
    b.next('10.0.0.9');
    expect(b.affinityCount()).toBe(1);
  });

  it('no endpoint: undefined', () => {
    expect(new Balancer(new FakeClock(), Math.random).next('127.0.0.9')).toBeUndefined();
  });

  it('ClientIP affinity: the same endpoint while used within the timeout, a new pick after it; other clients go on round robin', async () => {
    const clock = new FakeClock();
    const b = new Balancer(clock, mulberry32(2));
    b.update(['a', 'b', 'c'], 60_000);
    const mine = b.next('10.0.0.1');
    await clock.advance(59_000);
    expect(picks(b, 5, '10.0.0.1')).toEqual(Array(5).fill(mine));
    expect(b.next('10.0.0.2')).not.toEqual(mine);
    await clock.advance(60_000);
    expect(b.next('10.0.0.1')).not.toEqual(mine);
  });

  it('a reset (its dial failed) picks the next endpoint and sticks to that one', () => {
    const b = new Balancer(new FakeClock(), mulberry32(3));
    b.update(['a', 'b'], 60_000);
    const first = b.next('10.0.0.1');
    const second = b.next('10.0.0.1', true);
    expect(second).not.toEqual(first);
    expect(b.next('10.0.0.1')).toEqual(second);
  });

  it('a client stuck to an endpoint that goes is moved', () => {
    const b = new Balancer(new FakeClock(), () => 0.99);
    b.update(['a', 'b'], 60_000);
    const first = b.next('10.0.0.1')!;
    b.update(['a', 'b'].filter((e) => e !== first), 60_000);
    expect(b.next('10.0.0.1')).not.toEqual(first);
  });

  it('shuffled keeps every item', () => {
    expect(shuffled([1, 2, 3, 4, 5], mulberry32(4)).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
