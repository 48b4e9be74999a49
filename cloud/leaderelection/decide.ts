import { scaledMs } from '../../shared/timing.js';
import { microTime, rawRecord, type LeaderRecord } from './record.js';

/**
 * client-go's tryAcquireOrRenew as pure functions: what a candidate saw, when it saw it change
 * (on its own clock), and what it does next. Expiry is never judged from renewTime, which was
 * written on another machine's clock.
 */
export interface Observed {
  record: LeaderRecord;
  raw: string;
  /** Local time the record was first seen as it is now. */
  at: number;
}

export interface Candidate {
  identity: string;
  /** What it writes as leaseDurationSeconds. */
  leaseDurationSeconds: number;
  timeScale: number;
}

export type Attempt =
  | { kind: 'create'; record: LeaderRecord }
  | { kind: 'update'; record: LeaderRecord }
  | { kind: 'wait'; holder: string };

/** The record as now seen: the same raw record keeps the time it was first seen. */
export function observe(previous: Observed | undefined, record: LeaderRecord, now: number): Observed {
  const raw = rawRecord(record);
  return previous?.raw === raw ? previous : { record, raw, at: now };
}

/** isLeaseValid: the record's leaseDurationSeconds (time-scaled) have not passed since it was seen to change. */
export function leaseValid(observed: Observed, now: number, timeScale: number): boolean {
  return observed.at + scaledMs({ timeScale }, observed.record.leaseDurationSeconds) > now;
}

export function heldBy(observed: Observed | undefined, identity: string): boolean {
  return observed !== undefined && observed.record.holderIdentity === identity;
}

/** The record a holder writes to renew: its acquireTime and transitions kept, renewTime now. */
export function renewal(observed: Observed, self: Candidate, now: number): LeaderRecord {
  return { ...claim(self, now, observed.record.leaseTransitions), acquireTime: observed.record.acquireTime ?? microTime(now) };
}

/**
 * After reading the lock (`observed` undefined: no Lease yet): create it, take it over (free,
 * released, or expired on this clock), renew it (ours), or wait for its holder's lease to run out.
 */
export function planAttempt(observed: Observed | undefined, self: Candidate, now: number): Attempt {
  if (!observed) return { kind: 'create', record: claim(self, now, 0) };
  const holder = observed.record.holderIdentity;
  if (holder === self.identity) return { kind: 'update', record: renewal(observed, self, now) };
  if (holder !== '' && leaseValid(observed, now, self.timeScale)) return { kind: 'wait', holder };
  return { kind: 'update', record: claim(self, now, observed.record.leaseTransitions + 1) };
}

/** ReleaseOnCancel: nobody holds it, and it lasts 1 s, so the next candidate takes it at its next try. */
export function release(observed: Observed, now: number): LeaderRecord {
  const at = microTime(now);
  return { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at, leaseTransitions: observed.record.leaseTransitions };
}

function claim(self: Candidate, now: number, leaseTransitions: number): LeaderRecord {
  const at = microTime(now);
  return { holderIdentity: self.identity, leaseDurationSeconds: self.leaseDurationSeconds, acquireTime: at, renewTime: at, leaseTransitions };
}
