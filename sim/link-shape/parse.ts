import { formatGoDuration, parseGoDuration } from '../../shared/go-duration.js';
import type { FlapSchedule } from './flap.js';
import { formatRate, LIMITS, NAMED_PROFILES, PROFILE_NAMES, type LinkProfile, type ProfileName } from './profile.js';

/**
 * One checker for what `kedge link shape|flap`, the control API and scenario steps are given:
 * fields by their camelCase names, values as texts with units (600ms, 2%, 64kbit) or numbers
 * (a loss in percent, a seed). Each problem names its field; the CLI shows it as its flag.
 */
export interface FieldProblem {
  field: string | undefined;
  message: string;
}

export type Parsed<T> = { value: T; problems?: undefined } | { value?: undefined; problems: FieldProblem[] };

export type ShapeRequest = { clear: true } | { clear?: false; profile: LinkProfile };
export type FlapRequest = { stop: true } | { stop?: false; schedule: FlapSchedule };

export const SHAPE_FIELDS = ['profile', 'latency', 'jitter', 'loss', 'rate', 'rateUp', 'rateDown', 'seed', 'clear'] as const;
export const FLAP_FIELDS = ['down', 'every', 'seed', 'stop'] as const;
const SHAPING_FIELDS = ['latency', 'jitter', 'loss', 'rate', 'rateUp', 'rateDown'] as const;

const MAX_FLAP_DOWN_MS = 3_600_000;
const MAX_FLAP_EVERY_MS = 86_400_000;
const RATE = /^(\d+(?:\.\d+)?|\.\d+)(bit|kbit|mbit|gbit)(?:\/s)?$/i;
const RATE_UNIT: Record<string, number> = { bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9 };

type Input = Record<string, unknown>;
const shown = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : String(JSON.stringify(v)));

/** How a field is called where the input came from: `--rate-up` for the CLI, `rateUp` elsewhere. */
export type FieldNamer = (field: string) => string;

class Checker {
  readonly problems: FieldProblem[] = [];
  constructor(
    readonly input: Input,
    readonly name: FieldNamer,
  ) {}

  names(fields: readonly string[]): string {
    return fields.map(this.name).join(', ');
  }

  problem(field: string | undefined, message: string): undefined {
    this.problems.push({ field, message });
    return undefined;
  }

  only(allowed: readonly string[]): void {
    for (const key of Object.keys(this.input)) {
      if (this.input[key] !== undefined && !allowed.includes(key)) this.problem(key, `unknown field (allowed: ${this.names(allowed)})`);
    }
  }

  duration(field: string, max: number): number | undefined {
    const v = this.input[field];
    if (v === undefined) return undefined;
    const ms = typeof v === 'string' ? parseGoDuration(v) : undefined;
    if (ms === undefined || ms < 0) return this.problem(field, `${shown(v)} is not a duration such as 600ms or 5s`);
    if (ms > max) return this.problem(field, `${shown(v)} is more than ${formatGoDuration(max)}`);
    return ms;
  }

  rate(field: string): number | undefined {
    const v = this.input[field];
    if (v === undefined) return undefined;
    const m = typeof v === 'string' ? RATE.exec(v.trim()) : null;
    if (!m) return this.problem(field, `${shown(v)} is not a rate such as 64kbit, 1.5mbit or 500000bit`);
    const bps = Math.round(Number(m[1]) * RATE_UNIT[m[2]!.toLowerCase()]!);
    if (bps < LIMITS.minRateBps || bps > LIMITS.maxRateBps) {
      return this.problem(field, `${shown(v)} is not from ${formatRate(LIMITS.minRateBps)} to ${formatRate(LIMITS.maxRateBps)}`);
    }
    return bps;
  }

  percent(field: string): number | undefined {
    const v = this.input[field];
    if (v === undefined) return undefined;
    const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim().replace(/%$/, '') : '';
    const n = /^(\d+(\.\d+)?|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!(n >= 0 && n <= LIMITS.lossPercent)) return this.problem(field, `${shown(v)} is not a percentage from 0% to ${LIMITS.lossPercent}%`);
    return n;
  }

  seed(field = 'seed'): number | undefined {
    const v = this.input[field];
    if (v === undefined) return undefined;
    const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) return this.problem(field, `${shown(v)} is not a whole number from 0 to 4294967295`);
    return n;
  }

  flag(field: string): boolean {
    const v = this.input[field];
    if (v === undefined || v === false || v === 'false') return false;
    if (v === true || v === 'true' || v === '') return true;
    this.problem(field, `expected true or false, got ${shown(v)}`);
    return false;
  }

  result<T>(value: T | undefined): Parsed<T> {
    return this.problems.length > 0 || value === undefined ? { problems: this.problems } : { value };
  }
}

function baseProfile(c: Checker): LinkProfile | undefined {
  const name = c.input.profile;
  if (name === undefined) return { ...NAMED_PROFILES.lan, name: 'custom' };
  if (typeof name === 'string' && (PROFILE_NAMES as readonly string[]).includes(name)) return { ...NAMED_PROFILES[name as ProfileName] };
  return c.problem('profile', `${shown(name)} is not a profile (${PROFILE_NAMES.join(', ')})`);
}

/** `clear`, or a profile: a named one, explicit fields, or a named one with fields changed (then called `custom`). */
export function parseShape(input: Input, name: FieldNamer = (f) => f): Parsed<ShapeRequest> {
  const c = new Checker(input, name);
  c.only(SHAPE_FIELDS);
  const given = SHAPE_FIELDS.filter((f) => input[f] !== undefined && f !== 'clear');
  if (c.flag('clear')) {
    if (given.length > 0) c.problem('clear', `goes alone (it removes the profile and any flap), not with ${c.names(given)}`);
    return c.result<ShapeRequest>({ clear: true });
  }
  if (given.length === 0) c.problem(undefined, `give ${c.names(['profile', 'clear'])}, or at least one of ${c.names(SHAPING_FIELDS)}`);
  const base = baseProfile(c);
  const latencyMs = c.duration('latency', LIMITS.latencyMs);
  const jitterMs = c.duration('jitter', LIMITS.jitterMs);
  const lossPercent = c.percent('loss');
  const rate = c.rate('rate');
  const rateUpBps = c.rate('rateUp') ?? rate;
  const rateDownBps = c.rate('rateDown') ?? rate;
  const seed = c.seed();
  if (!base) return c.result<ShapeRequest>(undefined);
  const changes = { latencyMs, jitterMs, lossPercent, rateUpBps, rateDownBps, seed };
  const profile: LinkProfile = { ...base };
  for (const [key, value] of Object.entries(changes)) if (value !== undefined) Object.assign(profile, { [key]: value });
  if (SHAPING_FIELDS.some((f) => input[f] !== undefined)) profile.name = 'custom';
  return c.result<ShapeRequest>({ profile });
}

/** `stop`, or a schedule: down (above 0, at most 1h) every (more than down, at most 24h), maybe a seed. */
export function parseFlap(input: Input, name: FieldNamer = (f) => f): Parsed<FlapRequest> {
  const c = new Checker(input, name);
  c.only(FLAP_FIELDS);
  if (c.flag('stop')) {
    const given = FLAP_FIELDS.filter((f) => input[f] !== undefined && f !== 'stop');
    if (given.length > 0) c.problem('stop', `goes alone, not with ${c.names(given)}`);
    return c.result<FlapRequest>({ stop: true });
  }
  const downMs = c.duration('down', MAX_FLAP_DOWN_MS);
  const everyMs = c.duration('every', MAX_FLAP_EVERY_MS);
  const seed = c.seed();
  if (input.down === undefined) c.problem('down', 'required: how long the link stays down, such as 5s');
  if (input.every === undefined) c.problem('every', 'required: how often it goes down, such as 30s');
  if (downMs === 0) c.problem('down', 'must be more than 0');
  if (downMs !== undefined && everyMs !== undefined && everyMs <= downMs) c.problem('every', `must be more than ${name('down')} (${formatGoDuration(downMs)})`);
  if (downMs === undefined || everyMs === undefined) return c.result<FlapRequest>(undefined);
  return c.result<FlapRequest>({ schedule: { downMs, everyMs, ...(seed !== undefined && { seed }) } });
}

/** Problems as one message, each with its field named as `name(field)` says (a flag, a query parameter). */
export function describeProblems(problems: FieldProblem[], name: FieldNamer = (f) => f): string {
  return problems.map((p) => (p.field === undefined ? p.message : `${name(p.field)}: ${p.message}`)).join('; ');
}
