import { describe, expect, it } from 'vitest';
import { electionTimingError, jitteredRetryMs, leaseDurationSeconds } from '../../cloud/leaderelection/config.js';
import { leaseValid, observe, planAttempt, release, type Candidate, type Observed } from '../../cloud/leaderelection/decide.js';
import { microTime, type LeaderRecord } from '../../cloud/leaderelection/record.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';

const T0 = Date.UTC(2026, 0, 1);
const self: Candidate = { identity: 'host-a_1', leaseDurationSeconds: 15, timeScale: 1 };
const held = (holderIdentity: string, extra: Partial<LeaderRecord> = {}): LeaderRecord => ({
  holderIdentity, leaseDurationSeconds: 15, acquireTime: microTime(T0 - 60_000), renewTime: microTime(T0 - 60_000), leaseTransitions: 3, ...extra,
});
const seen = (record: LeaderRecord, at: number): Observed => observe(undefined, record, at);

describe('planAttempt (client-go tryAcquireOrRenew after reading the lock)', () => {
  it.each([
    ['no Lease yet: create it, no transitions', undefined, T0, { kind: 'create', record: { holderIdentity: 'host-a_1', leaseTransitions: 0, acquireTime: microTime(T0), renewTime: microTime(T0) } }],
    ['ours: renew, keeping acquireTime and transitions', seen(held('host-a_1'), T0), T0, { kind: 'update', record: { holderIdentity: 'host-a_1', leaseTransitions: 3, acquireTime: microTime(T0 - 60_000), renewTime: microTime(T0) } }],
    ["another's, seen changing 14.999 s ago: wait", seen(held('host-b_2'), T0 - 14_999), T0, { kind: 'wait', holder: 'host-b_2' }],
    ["another's, unchanged for 15 s on our clock: take it over, one more transition", seen(held('host-b_2'), T0 - 15_000), T0, { kind: 'update', record: { holderIdentity: 'host-a_1', leaseTransitions: 4, acquireTime: microTime(T0) } }],
    ['released (holder ""): take it at once', seen(held('', { leaseDurationSeconds: 1 }), T0), T0, { kind: 'update', record: { holderIdentity: 'host-a_1', leaseTransitions: 4, leaseDurationSeconds: 15 } }],
  ] as const)('%s', (_what, observed, now, expected) => {
    expect(planAttempt(observed, self, now)).toMatchObject(expected);
  });

  it("judges expiry from when the record was seen to change, never from the holder's renewTime", () => {
    // renewTime says an hour ago (another machine's clock), but we saw it change just now: valid.
    const stale = held('host-b_2', { renewTime: microTime(T0 - 3_600_000) });
    expect(planAttempt(seen(stale, T0), self, T0 + 1000)).toEqual({ kind: 'wait', holder: 'host-b_2' });
  });

  it('keeps the time a record was first seen while it stays the same, and restarts it when it changes', () => {
    const first = observe(undefined, held('host-b_2'), T0);
    expect(observe(first, held('host-b_2'), T0 + 10_000).at).toBe(T0);
    expect(observe(first, held('host-b_2', { renewTime: microTime(T0 + 9_000) }), T0 + 10_000).at).toBe(T0 + 10_000);
  });

  it('scales the lease duration written in the object by the time scale', () => {
    const observed = seen(held('host-b_2'), T0);
    expect(leaseValid(observed, T0 + 1_499, 10)).toBe(true);
    expect(leaseValid(observed, T0 + 1_500, 10)).toBe(false);
    expect(leaseDurationSeconds(scaleTiming(defaultTiming, 10))).toBe(15);
  });

  it('releases as ReleaseOnCancel: no holder, 1 s, transitions kept', () => {
    expect(release(seen(held('host-a_1'), T0), T0 + 5)).toEqual({ holderIdentity: '', leaseDurationSeconds: 1, acquireTime: microTime(T0 + 5), renewTime: microTime(T0 + 5), leaseTransitions: 3 });
  });

  it('writes MicroTime with microseconds', () => {
    expect(microTime(Date.UTC(2026, 0, 1, 12, 0, 0, 123))).toBe('2026-01-01T12:00:00.123000Z');
  });
});

describe('election timing', () => {
  it.each([
    [{ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, undefined],
    [{ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, 'leaseDuration must be greater than renewDeadline'],
    [{ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, 'renewDeadline must be greater than retryPeriod*JitterFactor'],
    [{ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }, 'retryPeriod must be greater than zero'],
  ])('%o: %s', (timing, error) => {
    expect(electionTimingError(timing)).toBe(error);
  });

  it('waits retryPeriod plus up to JitterFactor times it between tries', () => {
    expect(jitteredRetryMs(2_000, () => 0)).toBe(2_000);
    expect(jitteredRetryMs(2_000, () => 0.5)).toBe(3_200);
  });
});
