import { isKedgeError, KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import type { Store } from '../../store/store.js';
import type { ResourceDef } from '../kinds/registry.js';

/**
 * What apiservers sharing one store have picked lately for a kind whose values must be unique
 * (a Service's clusterIP and nodePorts) and may not have written yet: one key per kind,
 * changed only by compare-and-swap, as kube-apiserver keeps its allocations (its
 * RangeAllocation objects under /registry/ranges/). An apiserver picks free values from the
 * stored objects and these entries, then records its pick here; when another recorded in
 * between, the swap fails and it picks again. An entry goes once its object is stored, or
 * after RESERVATION_TTL_MS (a write that failed after its pick).
 */
export const RESERVATION_TTL_MS = 60_000;

export interface Reservation {
  /** `<namespace>/<name>` */
  key: string;
  /** When it was picked, on the picking apiserver's clock. */
  at: number;
  /** The object as far as its unique values go (the kind's `reservation` hook). */
  object: KubeObject;
}

export interface Reservations {
  entries: Reservation[];
  /** The key's modRevision; undefined while there is none. */
  modRevision?: number;
}

export const reservationsKey = (def: ResourceDef): string => `/registry/ranges/${def.group ? `${def.group}/` : ''}${def.resource}`;
export const objectKey = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

export async function readReservations(store: Store, def: ResourceDef): Promise<Reservations> {
  const kv = await store.get(reservationsKey(def));
  return kv ? { entries: (kv.value as { entries: Reservation[] }).entries, modRevision: kv.modRevision } : { entries: [] };
}

/** Pure: the entries still pending at `now`: not stored yet (by key) and not older than the TTL. */
export function pendingEntries(entries: readonly Reservation[], stored: ReadonlySet<string>, now: number): Reservation[] {
  return entries.filter((e) => !stored.has(e.key) && now - e.at < RESERVATION_TTL_MS);
}

/** Records `entry` over what was read (`read`): Conflict when another apiserver recorded since. */
export async function recordReservation(store: Store, def: ResourceDef, read: Reservations, entry: Reservation, stored: ReadonlySet<string>): Promise<void> {
  const entries = [...pendingEntries(read.entries, stored, entry.at).filter((e) => e.key !== entry.key), entry];
  const key = reservationsKey(def);
  try {
    if (read.modRevision === undefined) await store.create(key, { entries });
    else await store.update(key, { entries }, read.modRevision);
  } catch (err) {
    if (isKedgeError(err, 'AlreadyExists')) throw new KedgeError('Conflict', `${key} was written meanwhile`);
    throw err;
  }
}
