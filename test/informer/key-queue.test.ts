import { describe, expect, it } from 'vitest';
import { KeyQueue } from '../../cloud/informer/key-queue.js';
import { FakeClock } from '../../shared/clock.js';

describe('KeyQueue', () => {
  it('hands out each key once, in order, however often it was added', async () => {
    const q = new KeyQueue(new FakeClock(), { minMs: 10, maxMs: 40 });
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect([await q.take(), await q.take()]).toEqual(['a', 'b']);
  });

  it('re-adds failed keys after a doubling backoff, reset by forget', async () => {
    const clock = new FakeClock();
    const q = new KeyQueue(clock, { minMs: 10, maxMs: 40 });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = clock.now();
      q.addRateLimited('a');
      const taken = q.take();
      while (q.length > 0) await clock.advance(1);
      expect(await taken).toBe('a');
      waits.push(clock.now() - start);
    }
    expect(waits).toEqual([10, 20, 40, 40]);
    q.forget('a');
    q.addRateLimited('a');
    await clock.advance(10);
    expect(await q.take()).toBe('a');
  });

  it('an add cancels a pending backoff; close releases the waiting consumer', async () => {
    const clock = new FakeClock();
    const q = new KeyQueue(clock, { minMs: 10, maxMs: 40 });
    q.addRateLimited('a');
    q.add('a');
    expect(clock.pending).toBe(0);
    expect(await q.take()).toBe('a');
    const waiting = q.take();
    q.close();
    expect(await waiting).toBeUndefined();
  });

  it('take resolves undefined when the signal aborts', async () => {
    const q = new KeyQueue(new FakeClock(), { minMs: 10, maxMs: 40 });
    const controller = new AbortController();
    const waiting = q.take(controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
  });
});
