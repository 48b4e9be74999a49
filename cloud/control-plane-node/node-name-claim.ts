import type { Lease } from '../../shared/config-types.js';
import { KedgeError } from '../../shared/errors.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { CLOUD_ANNOTATION, NODE_LEASE_NAMESPACE } from './node-object.js';

/**
 * Pure: why the cloud `identity` may not take the control-plane node whose Lease this is, or
 * undefined when it may: no Lease, its own, one no cloud marked, or one not renewed within
 * its duration (that cloud is gone; judged on this cloud's clock).
 */
export function nodeNameTaken(lease: Lease | undefined, identity: string, now: number): string | undefined {
  const holder = lease?.metadata.annotations?.[CLOUD_ANNOTATION];
  const renewed = Date.parse(lease?.spec?.renewTime ?? '');
  const durationMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
  if (!lease || holder === undefined || holder === identity || !(renewed + durationMs > now)) return undefined;
  const name = lease.metadata.name!;
  return (
    `node name ${name} is held by another running cloud (${holder}: its Lease ${NODE_LEASE_NAMESPACE}/${name} was renewed ` +
    `${Math.max(0, Math.round((now - renewed) / 1000))} s ago, for ${durationMs / 1000} s): give each cloud its own --node-name, e.g. --node-name "$(hostname)"`
  );
}

/** Refuses (Conflict) to start a cloud under a control-plane node name another running cloud holds. */
export async function claimNodeName(api: ApiClient, name: string, identity: string, now: number): Promise<void> {
  const lease = await getOrUndefined(() => api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: NODE_LEASE_NAMESPACE, name }));
  const taken = nodeNameTaken(lease, identity, now);
  if (taken) throw new KedgeError('Conflict', taken);
}
