import { describe, expect, it } from 'vitest';
import { describeProblems, parseFlap, parseShape } from '../../../sim/link-shape/parse.js';
import { describeProfile, NAMED_PROFILES } from '../../../sim/link-shape/profile.js';

const flag = (field: string): string => `--${field}`;
const messages = (input: Record<string, unknown>, parse: typeof parseShape | typeof parseFlap = parseShape): string => describeProblems(parse(input, flag).problems ?? [], flag);

describe('parseShape', () => {
  it('explicit fields, with units', () => {
    expect(parseShape({ latency: '600ms', jitter: '100ms', loss: '2%', rate: '64kbit' }).value).toEqual({
      profile: { name: 'custom', latencyMs: 600, jitterMs: 100, lossPercent: 2, rateUpBps: 64_000, rateDownBps: 64_000 },
    });
    expect(parseShape({ rateUp: '1.5mbit', rateDown: '500000bit', loss: 0.5, seed: '7' }).value).toEqual({
      profile: { name: 'custom', latencyMs: 0, jitterMs: 0, lossPercent: 0.5, rateUpBps: 1_500_000, rateDownBps: 500_000, seed: 7 },
    });
    expect(parseShape({ rate: '1mbit', rateDown: '2mbit' }).value).toMatchObject({ profile: { rateUpBps: 1e6, rateDownBps: 2e6 } });
  });

  it('a named profile, alone or with fields changed (then custom)', () => {
    expect(parseShape({ profile: 'satellite' }).value).toEqual({ profile: NAMED_PROFILES.satellite });
    expect(parseShape({ profile: 'satellite', loss: '5%' }).value).toEqual({ profile: { ...NAMED_PROFILES.satellite, name: 'custom', lossPercent: 5 } });
    expect(parseShape({ profile: '3g', seed: 3 }).value).toEqual({ profile: { ...NAMED_PROFILES['3g'], seed: 3 } });
  });

  it('clear, alone', () => {
    expect(parseShape({ clear: true }).value).toEqual({ clear: true });
    expect(parseShape({ clear: 'true' }).value).toEqual({ clear: true });
    expect(messages({ clear: true, profile: 'lan' })).toBe('--clear: goes alone (it removes the profile and any flap), not with --profile');
  });

  it('names every bad field, and refuses values past the bounds', () => {
    expect(messages({})).toBe('give --profile, --clear, or at least one of --latency, --jitter, --loss, --rate, --rateUp, --rateDown');
    expect(describeProblems(parseShape({}).problems!)).toBe('give profile, clear, or at least one of latency, jitter, loss, rate, rateUp, rateDown');
    expect(messages({ profile: 'moon' })).toBe('--profile: "moon" is not a profile (satellite, 3g, wifi-flaky, lan)');
    expect(messages({ latency: 'fast' })).toBe('--latency: "fast" is not a duration such as 600ms or 5s');
    expect(messages({ latency: '1000000000s' })).toBe('--latency: "1000000000s" is more than 1m0s');
    expect(messages({ jitter: '-5ms' })).toBe('--jitter: "-5ms" is not a duration such as 600ms or 5s');
    expect(messages({ loss: '60%' })).toBe('--loss: "60%" is not a percentage from 0% to 50%');
    expect(messages({ loss: 'lots' })).toBe('--loss: "lots" is not a percentage from 0% to 50%');
    expect(messages({ rate: '64kb' })).toBe('--rate: "64kb" is not a rate such as 64kbit, 1.5mbit or 500000bit');
    expect(messages({ rateUp: '10bit' })).toBe('--rateUp: "10bit" is not from 1kbit to 10000mbit');
    expect(messages({ seed: -1, latency: '1s' })).toBe('--seed: -1 is not a whole number from 0 to 4294967295');
    expect(messages({ latency: '1s', speed: 'fast' })).toMatch(/^--speed: unknown field/);
    expect(messages({ latency: 'x', loss: 'y' })).toBe('--latency: "x" is not a duration such as 600ms or 5s; --loss: "y" is not a percentage from 0% to 50%');
  });

  it('describes a profile in one word', () => {
    expect(describeProfile(NAMED_PROFILES.satellite)).toBe('300ms±20ms,loss=1%,up=256kbit,down=256kbit');
    expect(describeProfile(NAMED_PROFILES['3g'])).toBe('150ms±30ms,loss=0.5%,up=768kbit,down=1.6mbit');
    expect(describeProfile(NAMED_PROFILES.lan)).toBe('-');
  });
});

describe('parseFlap', () => {
  it('down every, with or without a seed; or stop', () => {
    expect(parseFlap({ down: '5s', every: '30s' }).value).toEqual({ schedule: { downMs: 5000, everyMs: 30_000 } });
    expect(parseFlap({ down: '5s', every: '30s', seed: 7 }).value).toEqual({ schedule: { downMs: 5000, everyMs: 30_000, seed: 7 } });
    expect(parseFlap({ stop: true }).value).toEqual({ stop: true });
  });

  it('names every bad field', () => {
    expect(messages({}, parseFlap)).toBe('--down: required: how long the link stays down, such as 5s; --every: required: how often it goes down, such as 30s');
    expect(messages({ down: '30s', every: '30s' }, parseFlap)).toBe('--every: must be more than --down (30s)');
    expect(messages({ down: '0s', every: '30s' }, parseFlap)).toBe('--down: must be more than 0');
    expect(messages({ down: '5s', every: '2d' }, parseFlap)).toBe('--every: "2d" is not a duration such as 600ms or 5s');
    expect(messages({ down: '5s', every: '25h' }, parseFlap)).toBe('--every: "25h" is more than 24h0m0s');
    expect(messages({ stop: true, down: '5s' }, parseFlap)).toBe('--stop: goes alone, not with --down');
  });
});
