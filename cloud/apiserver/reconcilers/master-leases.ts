import { isIP } from 'node:net';
import { isKedgeError } from '../../../shared/errors.js';
import type { Timing } from '../../../shared/timing.js';
import type { KeyValue, Store } from '../../store/store.js';
import { microTime } from '../../control-plane-node/node-object.js';
import { goneForGcPeriod, type ApiserverEndpoint, type ApiserverFacts } from './apiserver-lease.js';

/**
 * Where each apiserver says where it is: one store key per apiserver, written by the
 * reconciler straight into the store, as kube-apiserver's lease endpoint reconciler keeps
 * `/masterleases/<ip>` under its etcd prefix. No API resource is kept under this prefix, so
 * no API user can read, forge or delete one: the `kubernetes` Service's Endpoints come only
 * from here, never from anything written through the API.
 */
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';

/** The store key of an apiserver's master lease (per identity: clouds on one machine share an IP). */
export const masterLeaseKey = (id: string): string => `${MASTER_LEASES_PREFIX}${id}`;

/** What one apiserver's key holds: its advertised IP and secure port, the holder of this run, when it was renewed. */
export interface MasterLease extends ApiserverEndpoint {
  holder: string;
  renewTime: string;
}

/** A master lease as read from the store. */
export interface MasterLeaseEntry {
  key: string;
  lease: MasterLease;
  modRevision: number;
}

/** The part of the Store the reconciler uses. */
export type MasterLeaseStore = Pick<Store, 'list' | 'create' | 'update' | 'delete'>;

/** This apiserver's master lease renewed at `now`. Pure. */
export function renewedMasterLease(self: ApiserverFacts, now: number): MasterLease {
  return { ip: self.ip, port: self.port, holder: self.holder, renewTime: microTime(now) };
}

/** The entry of a stored key, or undefined when its value is not a master lease (read defensively). Pure. */
export function masterLeaseEntry(kv: KeyValue): MasterLeaseEntry | undefined {
  const value = kv.value as Partial<MasterLease> | null;
  if (typeof value !== 'object' || value === null) return undefined;
  const { ip, port, holder, renewTime } = value;
  if (typeof ip !== 'string' || isIP(ip) === 0 || !Number.isInteger(port) || port! <= 0 || port! >= 65536) return undefined;
  if (typeof holder !== 'string' || typeof renewTime !== 'string') return undefined;
  return { key: kv.key, lease: { ip, port: port!, holder, renewTime }, modRevision: kv.modRevision };
}

/** The master leases not renewed for an hour by their renewTime (kube's identity Lease GC period), to delete. Pure. */
export function staleMasterLeases(entries: readonly MasterLeaseEntry[], now: number, timing: Pick<Timing, 'timeScale'>): MasterLeaseEntry[] {
  return entries.filter((entry) => goneForGcPeriod(entry.lease.renewTime, now, timing));
}

/** Every master lease in the store (keys that hold none are left out). */
export async function listMasterLeases(store: MasterLeaseStore): Promise<MasterLeaseEntry[]> {
  return (await store.list(MASTER_LEASES_PREFIX)).items.flatMap((kv) => masterLeaseEntry(kv) ?? []);
}

/** Writes this apiserver's master lease renewed at `now` over the one read (created when none); the entry as written. */
export async function renewOwnMasterLease(store: MasterLeaseStore, self: ApiserverFacts, now: number, current: MasterLeaseEntry | undefined): Promise<MasterLeaseEntry> {
  const key = masterLeaseKey(self.id);
  const lease = renewedMasterLease(self, now);
  const kv = current ? await store.update(key, lease, current.modRevision) : await store.create(key, lease);
  return { key, lease, modRevision: kv.modRevision };
}

/** Deletes a master lease, only as read when `modRevision` is given (a renewal since keeps it); gone already is done. */
export async function deleteMasterLease(store: MasterLeaseStore, key: string, modRevision?: number): Promise<void> {
  try {
    await store.delete(key, modRevision);
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}
