import type { CronJob } from '../../../shared/batch-types.js';
import { nextCronTime, type CronSchedule } from '../../../shared/cron-schedule.js';

/** More missed start times than this and kube warns TooManyMissedTimes. */
export const MANY_MISSED = 100;

export interface ScheduleTimes {
  /** The latest scheduled time at or before `now` not yet run; undefined when none is due. */
  mostRecent?: number;
  /** How many start times were missed since the last one run (an estimate, as kube's). */
  missed: number;
  /** The next scheduled time after `now`. */
  next?: number;
}

/**
 * mostRecentScheduleTime of kube's CronJob controller (utils.go), on the cron clock: counted
 * from lastScheduleTime (or the creation), or from now − startingDeadlineSeconds if later. Only
 * the latest missed time is returned: that is the one run. Pure.
 */
export function scheduleTimes(cj: CronJob, schedule: CronSchedule, now: number, created: number): ScheduleTimes {
  let earliest = cj.status?.lastScheduleTime ? Date.parse(cj.status.lastScheduleTime) : created;
  const deadline = cj.spec.startingDeadlineSeconds;
  if (deadline != null) earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = nextCronTime(schedule, earliest);
  if (t1 === undefined || now < t1) return { missed: 0, next: t1 };
  const t2 = nextCronTime(schedule, t1);
  if (t2 === undefined || now < t2) return { mostRecent: t1, missed: 1, next: t2 };
  const between = Math.round((t2 - t1) / 1000);
  const missed = Math.floor((now - t1) / 1000 / between) + 1;
  let mostRecent = t1;
  for (let t = nextCronTime(schedule, t1 + (missed - 2) * between * 1000); t !== undefined && t <= now; t = nextCronTime(schedule, t)) mostRecent = t;
  return { mostRecent, missed, next: nextCronTime(schedule, now) };
}
