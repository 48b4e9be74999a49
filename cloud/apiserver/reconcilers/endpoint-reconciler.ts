import type { Cancel, Clock } from '../../../shared/clock.js';
import { DISCOVERY_GROUP, SERVICE_NAME_LABEL, type EndpointSlice } from '../../../shared/cluster-object-types.js';
import type { Lease } from '../../../shared/config-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { failureRun } from '../../../shared/failure-run.js';
import type { Logger } from '../../../shared/log.js';
import type { Endpoints } from '../../../shared/service-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import { getOrUndefined, type ApiClient } from '../../client/client.js';
import type { EndpointsAction } from '../../controllers/endpoints/plan.js';
import type { SliceAction } from '../../controllers/endpointslice/plan.js';
import { IDENTITY_LABEL, KUBE_APISERVER, LEASE_NAMESPACE, RECONCILE_INTERVAL_SECONDS, renewedApiserverLease, staleLeases, type ApiserverEndpoint, type ApiserverFacts } from './apiserver-lease.js';
import { liveApiservers, sightLeases, type Sightings } from './lease-sightings.js';
import { KUBERNETES_SERVICE, planKubernetesEndpoints, planKubernetesSlices } from './kubernetes-endpoints.js';

export interface EndpointReconcilerOptions {
  /** The apiserver's own client (the cloud's identity). */
  api: ApiClient;
  clock: Clock;
  timing: Pick<Timing, 'timeScale'>;
  logger: Logger;
  /** This apiserver: its Lease's name and holder, its host name, advertised IP and secure port. */
  self: ApiserverFacts;
}

export interface EndpointReconciler {
  /** Runs one pass now (renews this apiserver's Lease, then the Endpoints and slices). */
  reconcile(): Promise<void>;
  /** Stops the passes, deletes this apiserver's Lease and takes its address out (kube's RemoveEndpoints). Idempotent. */
  close(): Promise<void>;
}

const leasesRef = (name?: string) => ({ resource: 'leases', group: 'coordination.k8s.io', namespace: LEASE_NAMESPACE, ...(name !== undefined && { name }) });
const endpointsRef = (name?: string) => ({ resource: 'endpoints', namespace: KUBERNETES_SERVICE.namespace, ...(name !== undefined && { name }) });
const slicesRef = (name?: string) => ({ resource: 'endpointslices', group: DISCOVERY_GROUP, namespace: KUBERNETES_SERVICE.namespace, ...(name !== undefined && { name }) });

/**
 * kube-apiserver's lease endpoint reconciler, in every cloud (no leader election): every 10 s
 * (time-scaled) the cloud renews its own identity Lease in kube-system (which carries its
 * advertised IP and port, live for 15 s), deletes the Leases of clouds gone for an hour, and
 * writes `default/kubernetes` Endpoints and EndpointSlice to the addresses of the live Leases
 * when they differ. A pass that fails (store stopped) is tried again at the next, logged once
 * until one succeeds; one that meets another cloud's write (Conflict, AlreadyExists) at once.
 * Starts with one pass, so the cloud lists itself on return.
 */
export async function startEndpointReconciler(options: EndpointReconcilerOptions): Promise<EndpointReconciler> {
  const { api, clock, timing, logger, self } = options;
  let cancel: Cancel | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  let sightings: Sightings = new Map();

  const pass = async (renew: boolean): Promise<void> => {
    const now = clock.now();
    const listed = (await api.list<Lease>(leasesRef(), { labelSelector: `${IDENTITY_LABEL}=${KUBE_APISERVER}` })).items;
    const others = listed.filter((lease) => lease.metadata.name !== self.id);
    const own = renew ? [await renewOwn(api, self, now, listed.find((lease) => lease.metadata.name === self.id))] : [];
    for (const lease of staleLeases(others, now, timing)) await deleteLease(api, lease);
    sightings = sightLeases(sightings, [...own, ...others], now);
    await writeKubernetesEndpoints(api, liveApiservers([...own, ...others], sightings, now, timing));
  };
  const reconcile = (): Promise<void> => (running ??= pass(!closed).finally(() => (running = undefined)));
  // Another cloud wrote first (kube's isRetriableError): once more at once, with what it wrote.
  const retried = (): Promise<void> => reconcile().catch((err: unknown) => (isKedgeError(err, 'Conflict') || isKedgeError(err, 'AlreadyExists') ? reconcile() : Promise.reject(err)));
  const failures = failureRun(logger, { failed: 'could not reconcile the kubernetes Service endpoints', recovered: 'reconciling the kubernetes Service endpoints again' });
  const tick = async (): Promise<void> => {
    await retried().then(() => failures.succeeded(), (err: unknown) => failures.failed(err));
    if (!closed) cancel = clock.setTimer(scaledMs(timing, RECONCILE_INTERVAL_SECONDS), () => void tick());
  };
  await tick();
  return {
    reconcile,
    async close() {
      if (closed) return;
      closed = true;
      cancel?.();
      await running?.catch(() => undefined);
      try {
        await deleteLease(api, { metadata: { name: self.id } });
        await retried();
      } catch (err) {
        logger.warn('could not take this apiserver out of the kubernetes Service endpoints', { error: String(err) });
      }
    },
  };
}

/** Renews (or creates) this apiserver's Lease from the one listed; the Lease as written. */
async function renewOwn(api: ApiClient, self: ApiserverFacts, now: number, listed: Lease | undefined): Promise<Lease> {
  const lease = renewedApiserverLease(self, now, listed);
  return listed ? api.replace<Lease>(leasesRef(self.id), lease) : api.create<Lease>(leasesRef(), lease);
}

/** Deletes a Lease, only as listed when it has a resourceVersion (a renewal since keeps it). */
async function deleteLease(api: ApiClient, lease: Pick<Lease, 'metadata'>): Promise<void> {
  const { name, resourceVersion } = lease.metadata;
  try {
    await api.delete(leasesRef(name), resourceVersion === undefined ? {} : { preconditions: { resourceVersion } });
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}

/** Writes what the plans say of `default/kubernetes` Endpoints and slices for these apiservers. */
async function writeKubernetesEndpoints(api: ApiClient, members: readonly ApiserverEndpoint[]): Promise<void> {
  const current = await getOrUndefined(() => api.get<Endpoints>(endpointsRef(KUBERNETES_SERVICE.name)));
  for (const action of planKubernetesEndpoints(members, current)) await writeEndpoints(api, action);
  const slices = (await api.list<EndpointSlice>(slicesRef(), { labelSelector: `${SERVICE_NAME_LABEL}=${KUBERNETES_SERVICE.name}` })).items;
  for (const action of planKubernetesSlices(members, slices)) await writeSlice(api, action);
}

async function writeEndpoints(api: ApiClient, action: EndpointsAction): Promise<void> {
  if (action.type === 'create') await api.create(endpointsRef(), action.endpoints);
  else if (action.type === 'update') await api.replace(endpointsRef(KUBERNETES_SERVICE.name), action.endpoints);
}

async function writeSlice(api: ApiClient, action: SliceAction): Promise<void> {
  if (action.type === 'create') await api.create(slicesRef(), action.slice);
  else if (action.type === 'update') await api.replace(slicesRef(action.slice.metadata.name), action.slice);
  else await getOrUndefined(() => api.delete(slicesRef(action.name)));
}
