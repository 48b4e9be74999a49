import type { Lease } from '../../shared/config-types.js';
import { isKedgeError, KedgeError } from '../../shared/errors.js';
import { getOrUndefined, type ApiClient } from '../client/client.js';
import { CLOUD_ANNOTATION, microTime, NODE_LEASE_NAMESPACE } from './node-object.js';

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

/**
 * Takes the control-plane node name for the cloud `identity`: marks its Lease as this cloud's,
 * renewed now, with a create or a compare-and-swap, so that of two clouds claiming one name at
 * once one wins; refuses (Conflict) when another running cloud holds it (nodeNameTaken).
 */
export async function claimNodeName(api: ApiClient, name: string, identity: string, now: number, durationSeconds: number): Promise<void> {
  const ref = { resource: 'leases', group: 'coordination.k8s.io', namespace: NODE_LEASE_NAMESPACE };
  for (let attempt = 1; ; attempt++) {
    const current = await getOrUndefined(() => api.get<Lease>({ ...ref, name }));
    const taken = nodeNameTaken(current, identity, now);
    if (taken) throw new KedgeError('Conflict', taken);
    const spec = { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: microTime(now) };
    try {
      if (!current) await api.create<Lease>(ref, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, annotations: { [CLOUD_ANNOTATION]: identity } }, spec });
      else await api.replace<Lease>({ ...ref, name }, { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [CLOUD_ANNOTATION]: identity } }, spec: { ...current.spec, ...spec } });
      return;
    } catch (err) {
      // Another cloud wrote it in between: look again.
      if (!(isKedgeError(err, 'AlreadyExists') || isKedgeError(err, 'Conflict')) || attempt >= 3) throw err;
    }
  }
}
