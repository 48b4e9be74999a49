import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { flapCycles, Flapper, type FlapSchedule } from '../../../sim/link-shape/flap.js';
import { clusterClock } from '../../../sim/link-shape/scaled-clock.js';

/** A flapper on a fake clock, recording when it cuts and heals. */
function flapping(schedule: FlapSchedule, scale = 1) {
  const clock = new FakeClock(0);
  const events: string[] = [];
  const flapper = new Flapper(schedule, { clock: clusterClock(clock, scale), cut: () => events.push(`cut@${clock.now()}`), heal: () => events.push(`heal@${clock.now()}`) });
  return { clock, events, flapper };
}

describe('flap schedule', () => {
  it('down 5s every 30s: up 25 s, down 5 s, and again', async () => {
    const { clock, events, flapper } = flapping({ downMs: 5000, everyMs: 30_000 });
    await clock.advance(24_999);
    expect(events).toEqual([]);
    await clock.advance(1);
    expect(flapper.state()).toEqual({ downMs: 5000, everyMs: 30_000, phase: 'down', flaps: 1 });
    await clock.advance(65_000);
    expect(events).toEqual(['cut@25000', 'heal@30000', 'cut@55000', 'heal@60000', 'cut@85000', 'heal@90000']);
    expect(flapper.state()).toMatchObject({ phase: 'up', flaps: 3 });
  });

  it('is read in cluster time: at time scale 10 a 30 s period takes 3 real seconds', async () => {
    const { clock, events } = flapping({ downMs: 5000, everyMs: 30_000 }, 10);
    await clock.advance(6000);
    expect(events).toEqual(['cut@2500', 'heal@3000', 'cut@5500', 'heal@6000']);
  });

  it('stop(): no more flaps, and a link it holds down is healed', async () => {
    const { clock, events, flapper } = flapping({ downMs: 5000, everyMs: 30_000 });
    await clock.advance(26_000);
    flapper.stop();
    expect(events).toEqual(['cut@25000', 'heal@26000']);
    expect(clock.pending).toBe(0);
    await clock.advance(100_000);
    expect(events).toHaveLength(2);
  });

  it('a seed gives a random pattern around the schedule, the same for the same seed', () => {
    const take = (schedule: FlapSchedule) => {
      const next = flapCycles(schedule);
      return Array.from({ length: 20 }, () => next());
    };
    const a = take({ downMs: 5000, everyMs: 30_000, seed: 7 });
    expect(take({ downMs: 5000, everyMs: 30_000, seed: 7 })).toEqual(a);
    expect(take({ downMs: 5000, everyMs: 30_000, seed: 8 })).not.toEqual(a);
    expect(new Set(a.map((c) => c.downMs)).size).toBeGreaterThan(10);
    for (const c of a) {
      expect(c.downMs).toBeGreaterThanOrEqual(2500);
      expect(c.downMs).toBeLessThanOrEqual(7500);
      expect(c.upMs).toBeGreaterThanOrEqual(12_500);
      expect(c.upMs).toBeLessThanOrEqual(37_500);
    }
  });

  it('a seeded flapper replays exactly', async () => {
    const run = async () => {
      const { clock, events } = flapping({ downMs: 5000, everyMs: 30_000, seed: 99 });
      await clock.advance(300_000);
      return events;
    };
    const first = await run();
    expect(first.length).toBeGreaterThan(10);
    expect(await run()).toEqual(first);
  });
});

describe('clusterClock', () => {
  it('runs S times as fast as the clock it reads', async () => {
    const clock = new FakeClock(1000);
    const cluster = clusterClock(clock, 4);
    let fired = 0;
    cluster.setTimer(400, () => fired++);
    await clock.advance(100);
    expect(fired).toBe(1);
    expect(cluster.now()).toBe(1400);
    expect(clusterClock(clock, 1)).toBe(clock);
  });
});
