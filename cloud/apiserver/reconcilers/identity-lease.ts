import type { Lease } from '../../../shared/config-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { Timing } from '../../../shared/timing.js';
import type { ApiClient } from '../../client/client.js';
import { IDENTITY_LABEL, KUBE_APISERVER, LEASE_NAMESPACE, renewedApiserverLease, staleLeases, type ApiserverFacts } from './apiserver-lease.js';

const leasesRef = (name?: string) => ({ resource: 'leases', group: 'coordination.k8s.io', namespace: LEASE_NAMESPACE, ...(name !== undefined && { name }) });

/**
 * kube-apiserver's identity Lease controller: renews (or creates) this apiserver's Lease in
 * kube-system and deletes the identity Leases not renewed for an hour. What they say is for
 * people and tools reading them: the `kubernetes` Service's Endpoints never come from them
 * (anyone who may write Leases in kube-system may write one).
 */
export async function renewIdentityLease(api: ApiClient, self: ApiserverFacts, now: number, timing: Pick<Timing, 'timeScale'>): Promise<void> {
  const listed = (await api.list<Lease>(leasesRef(), { labelSelector: `${IDENTITY_LABEL}=${KUBE_APISERVER}` })).items;
  const current = listed.find((lease) => lease.metadata.name === self.id);
  const lease = renewedApiserverLease(self, now, current);
  if (current) await api.replace<Lease>(leasesRef(self.id), lease);
  else await api.create<Lease>(leasesRef(), lease);
  const others = listed.filter((l) => l.metadata.name !== self.id);
  for (const stale of staleLeases(others, now, timing)) await deleteIdentityLease(api, stale);
}

/** Deletes an identity Lease, only as listed when it has a resourceVersion (a renewal since keeps it). */
export async function deleteIdentityLease(api: ApiClient, lease: Pick<Lease, 'metadata'>): Promise<void> {
  const { name, resourceVersion } = lease.metadata;
  try {
    await api.delete(leasesRef(name), resourceVersion === undefined ? {} : { preconditions: { resourceVersion } });
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}
