import type { Lease, LeaseSpec } from '../../shared/config-types.js';

/** client-go's resourcelock.LeaderElectionRecord, as a Lease's spec holds it. */
export interface LeaderRecord {
  /** "" when nobody holds the lock (released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

export function recordOf(lease: Lease): LeaderRecord {
  const spec = lease.spec ?? {};
  const record: LeaderRecord = { holderIdentity: spec.holderIdentity ?? '', leaseDurationSeconds: spec.leaseDurationSeconds ?? 0, leaseTransitions: spec.leaseTransitions ?? 0 };
  if (spec.acquireTime) record.acquireTime = spec.acquireTime;
  if (spec.renewTime) record.renewTime = spec.renewTime;
  return record;
}

/** The Lease spec for a record (leaselock.go's LeaderElectionRecordToLeaseSpec). */
export function leaseSpecOf(record: LeaderRecord): LeaseSpec {
  return { ...record };
}

/** What tells that a record changed: client-go compares the raw record, not the resourceVersion. */
export function rawRecord(record: LeaderRecord): string {
  const { holderIdentity, leaseDurationSeconds, acquireTime = null, renewTime = null, leaseTransitions } = record;
  return JSON.stringify([holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions]);
}

/** metav1.MicroTime as written: RFC 3339 with microseconds ("2006-01-02T15:04:05.000000Z07:00"). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}
