import { writeFile as writeWithCallback } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { pass, runUntil, settle } from './settle.js';

/** A check that takes 40 ms of real time, as on a busy machine, and is true from its `trueFrom`th call. */
function slowCheck(trueFrom = Infinity): { check: () => Promise<boolean>; calls: () => number } {
  let calls = 0;
  return { check: async () => (await wallDelay(40), ++calls >= trueFrom), calls: () => calls };
}

describe('settle, runUntil and pass', () => {
  let dir: string;
  let clock: FakeClock;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-settle-'));
    clock = new FakeClock();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Writes `count` files one after another, each begun from the previous one's callback (and a turn later). */
  function writeChain(count: number): { done: () => boolean } {
    let written = 0;
    const next = (): void => {
      if (written === count) return;
      writeWithCallback(join(dir, `f${written}`), 'x'.repeat(64 * 1024), (err) => {
        if (err) throw err;
        written++;
        setImmediate(next);
      });
    };
    next();
    return { done: () => written === count };
  }

  it('settle waits for a chain of filesystem writes, callbacks and promises alike', async () => {
    const chain = writeChain(8);
    let promised = false;
    void writeFile(join(dir, 'p'), 'y'.repeat(64 * 1024)).then(() => writeFile(join(dir, 'q'), 'z')).then(() => (promised = true));
    await settle();
    expect(chain.done()).toBe(true);
    expect(promised).toBe(true);
    expect(await readFile(join(dir, 'q'), 'utf8')).toBe('z');
  });

  it('runUntil sees the end of real filesystem work without moving fake time', async () => {
    const chain = writeChain(8);
    const start = clock.now();
    await runUntil(clock, chain.done, 'the chain of writes', { budgetMs: 0 });
    expect(clock.now()).toBe(start);
  });

  it('runUntil moves fake time in steps until a timer makes the check true', async () => {
    const start = clock.now();
    let fired = false;
    clock.setTimer(1_000, () => void writeFile(join(dir, 'late'), 'now').then(() => (fired = true)));
    await runUntil(clock, () => fired, 'the timer and its write', { stepMs: 100 });
    expect(clock.now() - start).toBe(1_000);
  });

  it('a never-true check fails after its fake budget, however slow each check is', async () => {
    const start = clock.now();
    const never = slowCheck();
    await expect(runUntil(clock, never.check, 'nothing', { stepMs: 30, budgetMs: 100 })).rejects.toThrow(
      'timed out after 100 ms of fake time waiting for nothing',
    );
    expect(clock.now() - start).toBe(100);
    expect(never.calls()).toBe(5); // at 0, 30, 60, 90 and 100 ms of fake time
  });

  it('a slow check that comes true within its fake budget passes, though more real time went by', async () => {
    const start = performance.now();
    const late = slowCheck(4);
    expect(await runUntil(clock, late.check, 'the fourth check', { stepMs: 30, budgetMs: 100 })).toBe(true);
    expect(performance.now() - start).toBeGreaterThan(100);
  });

  it('pass moves fake time in steps and lets the work each tick starts finish before the next', async () => {
    const ticks: string[] = [];
    let busy = false;
    clock.setRepeating(100, () => {
      if (busy) return void ticks.push('overlap');
      busy = true;
      const name = join(dir, `tick${ticks.length}`);
      void writeFile(name, 'a'.repeat(64 * 1024)).then(() => readFile(name)).then(() => {
        ticks.push('done');
        busy = false;
      });
    });
    const start = clock.now();
    await pass(clock, 1_000, 100);
    expect(clock.now() - start).toBe(1_000);
    expect(ticks).toEqual(Array(10).fill('done'));
  });
});
