import type { Cancel, Clock } from '../../../shared/clock.js';
import { DISCOVERY_GROUP, SERVICE_NAME_LABEL, type EndpointSlice } from '../../../shared/cluster-object-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { failureRun } from '../../../shared/failure-run.js';
import type { Logger } from '../../../shared/log.js';
import type { Endpoints, Service } from '../../../shared/service-types.js';
import { scaledMs, type Timing } from '../../../shared/timing.js';
import { getOrUndefined, type ApiClient } from '../../client/client.js';
import type { EndpointsAction } from '../../controllers/endpoints/plan.js';
import type { SliceAction } from '../../controllers/endpointslice/plan.js';
import { ensureKubernetesService } from '../kinds/bootstrap.js';
import { RECONCILE_INTERVAL_SECONDS, type ApiserverEndpoint, type ApiserverFacts } from './apiserver-lease.js';
import { deleteIdentityLease, renewIdentityLease } from './identity-lease.js';
import { liveApiservers, sightLeases, type Sightings } from './lease-sightings.js';
import { deleteMasterLease, listMasterLeases, masterLeaseKey, renewOwnMasterLease, staleMasterLeases, type MasterLeaseStore } from './master-leases.js';
import { KUBERNETES_SERVICE, planKubernetesEndpoints, planKubernetesSlices } from './kubernetes-endpoints.js';

export interface EndpointReconcilerOptions {
  /** The apiserver's own client (the cloud's identity). */
  api: ApiClient;
  /** The apiserver's store, where the master leases are kept out of the API's reach. */
  store: MasterLeaseStore;
  clock: Clock;
  timing: Pick<Timing, 'timeScale'>;
  logger: Logger;
  /** This apiserver: its Lease's name and holder, its host name, advertised IP and secure port. */
  self: ApiserverFacts;
}

export interface EndpointReconciler {
  /** Runs one pass now (renews this apiserver's master lease, the Endpoints and slices, the Service, its identity Lease). */
  reconcile(): Promise<void>;
  /** Stops the passes, deletes this apiserver's master lease and Lease and takes its address out (kube's RemoveEndpoints). Idempotent. */
  close(): Promise<void>;
}

const serviceRef = { resource: 'services', namespace: KUBERNETES_SERVICE.namespace, name: KUBERNETES_SERVICE.name };
const endpointsRef = (name?: string) => ({ resource: 'endpoints', namespace: KUBERNETES_SERVICE.namespace, ...(name !== undefined && { name }) });
const slicesRef = (name?: string) => ({ resource: 'endpointslices', group: DISCOVERY_GROUP, namespace: KUBERNETES_SERVICE.namespace, ...(name !== undefined && { name }) });

/**
 * kube-apiserver's lease endpoint reconciler, in every cloud (no leader election): every 10 s
 * (time-scaled) the cloud renews its master lease, a key it writes straight into the store
 * (`/registry/masterleases/<id>`, out of the API's reach) with its advertised IP and port, live
 * for 15 s; deletes the master leases of clouds gone for an hour; and writes `default/kubernetes`
 * Endpoints and EndpointSlice to the addresses of the live ones when they differ. It then
 * recreates the `kubernetes` Service when it was deleted (kube's
 * CreateOrUpdateMasterServiceIfNeeded) and renews its identity Lease in kube-system (which feeds
 * nothing). A pass that fails (store
 * stopped) is tried again at the next, logged once until one succeeds; one that meets another
 * cloud's write (Conflict, AlreadyExists) at once. Starts with one pass, so the cloud lists
 * itself on return.
 */
export async function startEndpointReconciler(options: EndpointReconcilerOptions): Promise<EndpointReconciler> {
  const { api, store, clock, timing, logger, self } = options;
  const ownKey = masterLeaseKey(self.id);
  let cancel: Cancel | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  let sightings: Sightings = new Map();

  const pass = async (renew: boolean): Promise<void> => {
    const now = clock.now();
    const entries = await listMasterLeases(store);
    const others = entries.filter((entry) => entry.key !== ownKey);
    const own = renew ? [await renewOwnMasterLease(store, self, now, entries.find((entry) => entry.key === ownKey))] : [];
    for (const entry of staleMasterLeases(others, now, timing)) await deleteMasterLease(store, entry.key, entry.modRevision);
    sightings = sightLeases(sightings, [...own, ...others], now);
    await writeKubernetesEndpoints(api, liveApiservers([...own, ...others], sightings, now, timing));
    if (!renew) return;
    if (!(await getOrUndefined(() => api.get<Service>(serviceRef)))) await ensureKubernetesService(api);
    await renewIdentityLease(api, self, now, timing);
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
        await deleteMasterLease(store, ownKey);
        await deleteIdentityLease(api, { metadata: { name: self.id } });
        await retried();
      } catch (err) {
        logger.warn('could not take this apiserver out of the kubernetes Service endpoints', { error: String(err) });
      }
    },
  };
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
