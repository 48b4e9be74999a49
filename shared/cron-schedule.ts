/**
 * Cron schedules as kube's CronJob controller reads them: robfig/cron v3 `ParseStandard`
 * (minute hour day-of-month month day-of-week, with ranges, steps, lists, names, `?`, and the
 * descriptors @yearly @annually @monthly @weekly @daily @midnight @hourly @every <duration>).
 * Times are evaluated in UTC. Errors carry robfig's wording, which kube-apiserver returns.
 */

export type CronSchedule =
  | { kind: 'spec'; minute: Set<number>; hour: Set<number>; dom: Set<number>; month: Set<number>; dow: Set<number>; domStar: boolean; dowStar: boolean }
  | { kind: 'every'; ms: number };

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: Object.fromEntries(MONTHS.map((m, i) => [m, i + 1])) },
  { min: 0, max: 6, names: Object.fromEntries(DAYS.map((d, i) => [d, i])) },
];

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

export class CronError extends Error {}

/** Parses a schedule; throws CronError with robfig's message. */
export function parseCron(spec: string): CronSchedule {
  if (spec.length === 0) throw new CronError('empty spec string');
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = spec.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]!));
  return {
    kind: 'spec', minute: minute!.values, hour: hour!.values, dom: dom!.values, month: month!.values, dow: dow!.values,
    domStar: dom!.star, dowStar: dow!.star,
  };
}

function parseDescriptor(spec: string): CronSchedule {
  const standard = DESCRIPTORS[spec];
  if (standard) return parseCron(standard);
  if (spec.startsWith('@every ')) {
    const ms = goDuration(spec.slice('@every '.length));
    if (ms === undefined) throw new CronError(`failed to parse duration ${spec}: time: invalid duration "${spec.slice(7)}"`);
    // robfig rounds to whole seconds, at least one.
    return { kind: 'every', ms: Math.max(1000, Math.floor(ms / 1000) * 1000) };
  }
  throw new CronError(`unrecognized descriptor: ${spec}`);
}

const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function goDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * GO_UNITS[m[2]!]!;
  return total;
}

/** One field: a comma-separated list of ranges. `star` is robfig's starBit (a bare `*` or `?`, or `*` with step 1). */
function parseField(field: string, bounds: Bounds): { values: Set<number>; star: boolean } {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',')) {
    const r = parseRange(expr, bounds);
    star ||= r.star;
    for (let v = r.start; v <= r.end; v += r.step) values.add(v);
  }
  return { values, star };
}

function parseRange(expr: string, bounds: Bounds): { start: number; end: number; step: number; star: boolean } {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    [start, end, star] = [bounds.min, bounds.max, true];
  } else {
    start = intOrName(lowAndHigh[0]!, bounds.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1]!, bounds.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = bounds.max; // "N/step" means "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new CronError(`too many slashes: ${expr}`);
  if (start < bounds.min) throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
  return { start, end, step, star };
}

function intOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named ?? mustParseInt(expr);
}

function mustParseInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

const MINUTE = 60_000;
const FIVE_YEARS = 5 * 366 * 24 * 60 * MINUTE;

/** The first time strictly after `after` (ms, UTC) the schedule fires; undefined if none within five years. */
export function nextCronTime(schedule: CronSchedule, after: number): number | undefined {
  if (schedule.kind === 'every') return Math.floor(after / 1000) * 1000 + schedule.ms;
  const d = new Date(Math.floor(after / MINUTE) * MINUTE + MINUTE);
  const limit = after + FIVE_YEARS;
  while (d.getTime() <= limit) {
    if (!schedule.month.has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!dayMatches(schedule, d)) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!schedule.hour.has(d.getUTCHours())) {
      d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
    } else if (!schedule.minute.has(d.getUTCMinutes())) {
      d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
    } else return d.getTime();
  }
  return undefined;
}

/** robfig's dayMatches: with a `*` in either day field both must match, else either. */
function dayMatches(s: Extract<CronSchedule, { kind: 'spec' }>, d: Date): boolean {
  const dom = s.dom.has(d.getUTCDate());
  const dow = s.dow.has(d.getUTCDay());
  return s.domStar || s.dowStar ? dom && dow : dom || dow;
}
