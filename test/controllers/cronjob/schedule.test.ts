import { describe, expect, it } from 'vitest';
import { cronClock, MANY_MISSED, scheduleTimes } from '../../../cloud/controllers/cronjob/index.js';
import type { CronJob } from '../../../shared/batch-types.js';
import { CronError, nextCronTime, parseCron } from '../../../shared/cron-schedule.js';

const utc = (text: string): number => Date.parse(`${text}Z`);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 16));

describe('parseCron (robfig/cron ParseStandard)', () => {
  it.each([
    ['*/15 * * * *', '2026-01-01T00:07', '2026-01-01T00:15'],
    ['0 9-17/4 * * mon-fri', '2026-01-02T13:30', '2026-01-02T17:00'], // a Friday
    ['0 9-17/4 * * mon-fri', '2026-01-02T17:30', '2026-01-05T09:00'], // to Monday
    ['30 6 1,15 * *', '2026-01-02T00:00', '2026-01-15T06:30'],
    ['0 0 1 jan ?', '2026-03-01T00:00', '2027-01-01T00:00'],
    ['0 0 13 * 5', '2026-01-01T00:00', '2026-01-02T00:00'], // day-of-month OR day-of-week
    ['@hourly', '2026-01-01T00:00', '2026-01-01T01:00'],
    ['@daily', '2026-01-01T10:00', '2026-01-02T00:00'],
    ['@weekly', '2026-01-01T10:00', '2026-01-04T00:00'],
    ['@monthly', '2026-01-01T10:00', '2026-02-01T00:00'],
    ['@yearly', '2026-01-01T10:00', '2027-01-01T00:00'],
    ['@every 90s', '2026-01-01T00:00', '2026-01-01T00:01'],
  ])('%s after %s is %s', (spec, after, next) => {
    expect(iso(nextCronTime(parseCron(spec), utc(after)))).toBe(next);
  });

  it.each([
    ['', 'empty spec string'],
    ['* * *', 'expected exactly 5 fields, found 3: [* * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['* * * * 7', 'end of range (7) above maximum (6): 7'],
    ['@fortnightly', 'unrecognized descriptor: @fortnightly'],
  ])('rejects %j: %s', (spec, message) => {
    expect(() => parseCron(spec)).toThrow(new CronError(message));
  });
});

function cronJob(spec: Partial<CronJob['spec']> = {}, lastSchedule?: string): CronJob {
  return {
    metadata: { name: 'c', namespace: 'default', uid: 'cj', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: { spec: { containers: [] } } } }, ...spec },
    ...(lastSchedule ? { status: { lastScheduleTime: lastSchedule } } : {}),
  };
}
const created = utc('2026-01-01T00:00');

describe('scheduleTimes (mostRecentScheduleTime)', () => {
  it.each([
    { name: 'nothing due yet', cj: cronJob(), now: '2026-01-01T00:00:30', recent: undefined, missed: 0 },
    { name: 'the first one due', cj: cronJob(), now: '2026-01-01T00:01:10', recent: '2026-01-01T00:01', missed: 1 },
    { name: 'only the latest of several missed', cj: cronJob({}, '2026-01-01T00:01:00Z'), now: '2026-01-01T00:05:30', recent: '2026-01-01T00:05', missed: 4 },
    { name: 'the starting deadline bounds the look-back', cj: cronJob({ startingDeadlineSeconds: 90 }), now: '2026-01-01T03:00:30', recent: '2026-01-01T03:00', missed: 1 },
  ])('$name', ({ cj, now, recent, missed }) => {
    const times = scheduleTimes(cj, parseCron(cj.spec.schedule), utc(now), created);
    expect(iso(times.mostRecent)).toBe(recent);
    expect(times.missed).toBe(missed);
  });

  it('counts more than 100 missed start times', () => {
    const times = scheduleTimes(cronJob(), parseCron('*/1 * * * *'), utc('2026-01-01T05:00:30'), created);
    expect(times.missed).toBeGreaterThan(MANY_MISSED);
    expect(iso(times.mostRecent)).toBe('2026-01-01T05:00');
  });
});

describe('cronClock', () => {
  it('starts at the creation time and runs time-scale times faster', () => {
    const clock = cronClock(cronJob(), 60);
    expect(clock.toCron(created + 1_000)).toBe(created + 60_000);
    expect(clock.toReal(created + 60_000)).toBe(created + 1_000);
    expect(cronClock(cronJob(), 1).toCron(created + 5_000)).toBe(created + 5_000);
  });
});
