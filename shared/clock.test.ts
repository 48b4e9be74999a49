import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';

describe('FakeClock', () => {
  it('fires timers in due order as time advances', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push('c'));
    clock.setTimer(10, () => fired.push('a'));
    clock.setTimer(20, () => fired.push('b'));
    await clock.advance(15);
    expect(fired).toEqual(['a']);
    await clock.advance(15);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(clock.now()).toBe(30);
  });

  it('repeats, and stops when cancelled', async () => {
    const clock = new FakeClock(0);
    let ticks = 0;
    const cancel = clock.setRepeating(10, () => ticks++);
    await clock.advance(35);
    expect(ticks).toBe(3);
    cancel();
    await clock.advance(100);
    expect(ticks).toBe(3);
    expect(clock.pending).toBe(0);
  });

  it('lets code awaiting a sleep run before later timers', async () => {
    const clock = new FakeClock(0);
    const seen: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        seen.push(clock.now());
      }
    })();
    await clock.advance(30);
    await loop;
    expect(seen).toEqual([10, 20, 30]);
  });

  it('rejects a sleep when its signal aborts and forgets the timer', async () => {
    const clock = new FakeClock(0);
    const ac = new AbortController();
    const slept = clock.sleep(1000, ac.signal);
    ac.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(clock.pending).toBe(0);
  });
});
