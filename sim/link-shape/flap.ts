import type { Cancel, Clock } from '../../shared/clock.js';
import { mulberry32 } from '../../shared/seeded-random.js';

/**
 * A link that goes down for `downMs` every `everyMs` (cluster time): up for every − down, then
 * cut for down, and again. With a seed the pattern is random but replayable: each up and each
 * down time is drawn uniformly from half to one and a half times its regular length.
 */
export interface FlapSchedule {
  downMs: number;
  everyMs: number;
  seed?: number;
}

/** One cycle: up this long, then down this long. */
export interface FlapCycle {
  upMs: number;
  downMs: number;
}

/** The cycles of a schedule, one per call. Pure but for the seeded draws. */
export function flapCycles(schedule: FlapSchedule): () => FlapCycle {
  const upMs = schedule.everyMs - schedule.downMs;
  const { downMs } = schedule;
  if (schedule.seed === undefined) return () => ({ upMs, downMs });
  const random = mulberry32(schedule.seed);
  const around = (ms: number): number => Math.round(ms * (0.5 + random()));
  return () => ({ upMs: around(upMs), downMs: around(downMs) });
}

export interface FlapState extends FlapSchedule {
  phase: 'up' | 'down';
  /** Cuts made so far. */
  flaps: number;
}

export interface FlapDeps {
  clock: Clock;
  cut(): void;
  heal(): void;
}

/** Acts a schedule out on a link (its cut and heal) until stopped. */
export class Flapper {
  private readonly next: () => FlapCycle;
  private phase: 'up' | 'down' = 'up';
  private flaps = 0;
  private timer: Cancel | undefined;

  constructor(
    readonly schedule: FlapSchedule,
    private readonly deps: FlapDeps,
  ) {
    this.next = flapCycles(schedule);
    this.startCycle();
  }

  state(): FlapState {
    return { ...this.schedule, phase: this.phase, flaps: this.flaps };
  }

  /** Ends the schedule; a link it holds down is healed. */
  stop(): void {
    this.cancel();
    if (this.phase === 'down') this.deps.heal();
    this.phase = 'up';
  }

  /** Ends the schedule and leaves the link as it is (the proxy is closing). */
  cancel(): void {
    this.timer?.();
    this.timer = undefined;
  }

  private startCycle(): void {
    const cycle = this.next();
    this.timer = this.deps.clock.setTimer(cycle.upMs, () => {
      this.phase = 'down';
      this.flaps++;
      this.deps.cut();
      this.timer = this.deps.clock.setTimer(cycle.downMs, () => {
        this.phase = 'up';
        this.deps.heal();
        this.startCycle();
      });
    });
  }
}
