import { createHash } from 'node:crypto';
import type { Lease } from '../../../shared/config-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import { labelValueErrors } from '../admission/name-formats.js';
import { microTime } from '../../control-plane-node/node-object.js';

/** The label that marks a Lease as an apiserver's identity, and its value for kube-apiserver (kube's IdentityLeaseComponentLabelKey). */
export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
export const KUBE_APISERVER = 'kube-apiserver';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
/** Where the apiserver says other members reach it, for people reading its Lease (the Endpoints never read these). */
export const ADDRESS_ANNOTATION = 'kedge.io/advertise-address';
export const PORT_ANNOTATION = 'kedge.io/secure-port';
export const LEASE_NAMESPACE = 'kube-system';
/** kube-apiserver's DefaultEndpointReconcilerTTL (of a master lease) and DefaultEndpointReconcilerInterval (seconds, time-scaled). */
export const APISERVER_LEASE_SECONDS = 15;
export const RECONCILE_INTERVAL_SECONDS = 10;
/** kube's IdentityLeaseGCPeriod: a Lease (or master lease) not renewed for an hour is a gone apiserver's, and is deleted. */
export const LEASE_GC_SECONDS = 3600;
/** kube's IdentityLeaseDurationSeconds: an identity Lease's duration. */
export const IDENTITY_LEASE_SECONDS = 3600;

/** One apiserver as the `kubernetes` Service reaches it. */
export interface ApiserverEndpoint {
  ip: string;
  port: number;
}

/** What this apiserver says of itself in its Lease. */
export interface ApiserverFacts extends ApiserverEndpoint {
  /** The Lease's name, apiserverId(...). */
  id: string;
  /** `<id>_<uuid>`, new at each start (kube's holderIdentity). */
  holder: string;
  hostname: string;
}

/**
 * The apiserver's identity Lease name, as kube-apiserver makes it: `apiserver-` and the
 * lowercase unpadded base32 of the first 16 bytes of the SHA-256 of (length-prefixed) `identity`
 * and "kube-apiserver". kube hashes the host name; kedge hashes the host name and data
 * directory, since several clouds may share a machine. Pure.
 */
export function apiserverId(identity: string): string {
  const prefixed = (text: string): Buffer => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const hash = createHash('sha256').update(Buffer.concat([prefixed(identity), prefixed(KUBE_APISERVER)])).digest().subarray(0, 16);
  return `apiserver-${base32(hash)}`;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return bits > 0 ? out + BASE32[(buffer << (5 - bits)) & 31] : out;
}

/**
 * The apiserver's Lease renewed at `now` (created when `current` is undefined): the identity
 * and host name labels, the advertised address and port, the holder of this run, an hour.
 * A label value the host name cannot be is left out. Pure.
 */
export function renewedApiserverLease(facts: ApiserverFacts, now: number, current?: Lease): Lease {
  const labels: Record<string, string> = { ...current?.metadata.labels, [IDENTITY_LABEL]: KUBE_APISERVER };
  if (labelValueErrors(facts.hostname).length === 0) labels[HOSTNAME_LABEL] = facts.hostname;
  const annotations = { ...current?.metadata.annotations, [ADDRESS_ANNOTATION]: facts.ip, [PORT_ANNOTATION]: String(facts.port) };
  const metadata = { ...(current?.metadata ?? { name: facts.id, namespace: LEASE_NAMESPACE }), labels, annotations };
  const acquireTime = current?.spec?.holderIdentity === facts.holder ? current.spec.acquireTime : microTime(now);
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...current, metadata, spec: { holderIdentity: facts.holder, leaseDurationSeconds: IDENTITY_LEASE_SECONDS, acquireTime, renewTime: microTime(now) } };
}

/** Whether `renewTime` (none or unreadable counts as never) is older than kube's GC period at `now`: a gone apiserver's. Pure. */
export function goneForGcPeriod(renewTime: string | undefined, now: number, timing: Pick<Timing, 'timeScale'>): boolean {
  const renewed = Date.parse(renewTime ?? '');
  return Number.isNaN(renewed) || now - renewed > scaledMs(timing, LEASE_GC_SECONDS);
}

/** The Leases of apiservers gone for longer than kube's GC period, to delete. Pure. */
export function staleLeases(leases: readonly Lease[], now: number, timing: Pick<Timing, 'timeScale'>): Lease[] {
  return leases.filter((lease) => goneForGcPeriod(lease.spec?.renewTime, now, timing));
}
