import type { CronJob } from '../../../shared/batch-types.js';

/**
 * The clock a CronJob's schedule is read on. With --time-scale N every interval in kedge is N
 * times shorter; a cron schedule is a wall calendar, so kedge gives each CronJob its own cron
 * clock: it reads the CronJob's creationTimestamp at the moment of creation and runs N times
 * faster from there (N = 1: the cloud's clock itself, as in Kubernetes). "*\/1 * * * *" at
 * --time-scale 60 thus runs every real second. status.lastScheduleTime, the Job's name and its
 * scheduled-timestamp annotation are times on this clock.
 */
export interface CronClock {
  /** Cron time at real time `real`. */
  toCron(real: number): number;
  /** Real time at cron time `cron`. */
  toReal(cron: number): number;
}

export function cronClock(cj: CronJob, scale: number): CronClock {
  const origin = Date.parse(cj.metadata.creationTimestamp ?? '') || 0;
  return {
    toCron: (real) => origin + (real - origin) * scale,
    toReal: (cron) => origin + (cron - origin) / scale,
  };
}
