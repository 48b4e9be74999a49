import { scaledMs, type Timing } from '../../../shared/timing.js';
import { APISERVER_LEASE_SECONDS, type ApiserverEndpoint } from './apiserver-lease.js';
import type { MasterLeaseEntry } from './master-leases.js';

/** One master lease as this cloud last saw it renewed: its renewTime, and when, on this cloud's clock. */
export interface Sighting {
  renewTime: string;
  at: number;
}

/** Master lease key → its last sighting. */
export type Sightings = ReadonlyMap<string, Sighting>;

/**
 * The sightings after reading `entries` at `now` (client-go's observedTime, Pure): a master
 * lease whose renewTime changed since the last sighting was renewed now, on this cloud's clock,
 * so another machine's clock is never trusted to keep an apiserver live. One seen for the first
 * time counts from its renewTime when that is earlier (a cloud killed long ago is not taken for
 * live), from now otherwise. One gone is dropped.
 */
export function sightLeases(previous: Sightings, entries: readonly MasterLeaseEntry[], now: number): Map<string, Sighting> {
  const next = new Map<string, Sighting>();
  for (const { key, lease } of entries) {
    const { renewTime } = lease;
    const before = previous.get(key);
    if (before?.renewTime === renewTime) next.set(key, before);
    else next.set(key, { renewTime, at: before ? now : Math.min(now, Date.parse(renewTime) || now) });
  }
  return next;
}

/** Whether kube's endpoint TTL (15 s, time-scaled) has not passed since the master lease was last seen renewed. Pure. */
export function leaseLive(entry: MasterLeaseEntry, sightings: Sightings, now: number, timing: Pick<Timing, 'timeScale'>): boolean {
  const seen = sightings.get(entry.key);
  return seen !== undefined && now - seen.at <= scaledMs(timing, APISERVER_LEASE_SECONDS);
}

/** The endpoints of the apiservers whose master leases are live at `now`. Pure. */
export function liveApiservers(entries: readonly MasterLeaseEntry[], sightings: Sightings, now: number, timing: Pick<Timing, 'timeScale'>): ApiserverEndpoint[] {
  return entries.filter((entry) => leaseLive(entry, sightings, now, timing)).map(({ lease: { ip, port } }) => ({ ip, port }));
}
