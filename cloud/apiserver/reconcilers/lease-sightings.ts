import type { Lease } from '../../../shared/config-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import { leaseEndpoint, type ApiserverEndpoint } from './apiserver-lease.js';

/** One Lease as this cloud last saw it renewed: its renewTime, and when, on this cloud's clock. */
export interface Sighting {
  renewTime: string;
  at: number;
}

/** Lease name → its last sighting. */
export type Sightings = ReadonlyMap<string, Sighting>;

/**
 * The sightings after listing `leases` at `now` (client-go's observedTime, Pure): a Lease whose
 * renewTime changed since the last sighting was renewed now, on this cloud's clock, so another
 * machine's clock is never trusted to keep a Lease live. A Lease seen for the first time counts
 * from its renewTime when that is earlier (a cloud killed long ago is not taken for live), from
 * now otherwise. A Lease without a renewTime, or gone, is dropped.
 */
export function sightLeases(previous: Sightings, leases: readonly Lease[], now: number): Map<string, Sighting> {
  const next = new Map<string, Sighting>();
  for (const lease of leases) {
    const { name = '' } = lease.metadata;
    const renewTime = lease.spec?.renewTime;
    if (!renewTime) continue;
    const before = previous.get(name);
    if (before?.renewTime === renewTime) next.set(name, before);
    else next.set(name, { renewTime, at: before ? now : Math.min(now, Date.parse(renewTime) || now) });
  }
  return next;
}

/** Whether the Lease's duration (time-scaled) has not passed since it was last seen renewed. Pure. */
export function leaseLive(lease: Lease, sightings: Sightings, now: number, timing: Pick<Timing, 'timeScale'>): boolean {
  const seconds = lease.spec?.leaseDurationSeconds;
  const seen = sightings.get(lease.metadata.name ?? '');
  return seconds !== undefined && seen !== undefined && now - seen.at <= scaledMs(timing, seconds);
}

/** The endpoints of the apiservers whose Leases are live at `now`. Pure. */
export function liveApiservers(leases: readonly Lease[], sightings: Sightings, now: number, timing: Pick<Timing, 'timeScale'>): ApiserverEndpoint[] {
  return leases.filter((lease) => leaseLive(lease, sightings, now, timing)).flatMap((lease) => leaseEndpoint(lease) ?? []);
}
