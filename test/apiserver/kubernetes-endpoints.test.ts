import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiServer, ensureKubernetesService, startEndpointReconciler, type EndpointReconciler } from '../../cloud/apiserver/index.js';
import type { ApiClient } from '../../cloud/client/client.js';
import type { RunningController } from '../../cloud/controllers/controller.js';
import { endpointsController } from '../../cloud/controllers/endpoints/index.js';
import { endpointSliceController } from '../../cloud/controllers/endpointslice/index.js';
import { memoryEventRecorder } from '../../cloud/controllers/events.js';
import type { EndpointSlice } from '../../shared/cluster-object-types.js';
import type { Lease } from '../../shared/config-types.js';
import { memoryLogger, silentLogger, type Logger } from '../../shared/log.js';
import type { Endpoints, Service } from '../../shared/service-types.js';
import { defaultTiming } from '../../shared/timing.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../support/api-fixture.js';
import { withInformers } from '../support/controller-context.js';
import { cuttableApi, type CuttableApi } from '../support/cuttable-api.js';

const endpointsRef = { resource: 'endpoints', namespace: 'default', name: 'kubernetes' };
const slicesRef = { resource: 'endpointslices', group: 'discovery.k8s.io', namespace: 'default' };
const leasesRef = { resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-system' };
const self = (n: number) => ({ id: `apiserver-${n}`, holder: `apiserver-${n}_run`, hostname: `cloud-${n}`, ip: `10.0.0.${n}`, port: 6443 });

/**
 * Two apiservers on one store (two clouds), each with its lease endpoint reconciler, on a fake
 * clock; the endpoints and endpointslice controllers run beside them and leave the
 * `kubernetes` Service's Endpoints and slice alone.
 */
describe('the kubernetes Service lists the live apiservers', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let second: CuttableApi;
  const running: { close(): Promise<unknown> }[] = [];

  /** Cloud n's reconciler: cloud 1 on the fixture's apiserver and store, cloud 2 on its own, behind a link that can be cut. */
  const reconciler = async (n: 1 | 2, logger: Logger = silentLogger): Promise<EndpointReconciler> => {
    const link = n === 1 ? { api, store: f.gate } : { api: second.api, store: second.store! };
    const started = await startEndpointReconciler({ ...link, clock: f.clock, timing: defaultTiming, logger, self: self(n) });
    running.push(started);
    return started;
  };
  const masterLeases = async (): Promise<string[]> => (await f.store.list('/registry/masterleases/')).items.map((kv) => kv.key);
  const listed = async (): Promise<{ endpoints: string[]; slice: string[]; slices: string[] }> => {
    const ep = await api.get<Endpoints>(endpointsRef);
    const slices = (await api.list<EndpointSlice>(slicesRef, { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
    const slice = slices.find((s) => s.metadata.name === 'kubernetes');
    return {
      endpoints: (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)),
      slice: (slice?.endpoints ?? []).flatMap((e) => e.addresses),
      slices: slices.map((s) => s.metadata.name ?? ''),
    };
  };

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    await ensureKubernetesService(api);
    const other = createApiServer({ store: f.gate, clock: f.clock, logger: silentLogger, tokens: [{ token: 't2', user: 'cloud-2', role: 'admin' }] });
    second = cuttableApi(other.loopback('t2'), f.gate);
    const ctx = withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events: memoryEventRecorder() });
    running.push(...(await Promise.all([endpointsController.start(ctx), endpointSliceController.start(ctx)] as Promise<RunningController>[])));
  });
  afterEach(async () => {
    second.heal();
    for (const r of running.splice(0).reverse()) await r.close();
  });

  it('as kube-apiserver writes them: Endpoints with skip-mirror, a slice named kubernetes, an identity Lease per apiserver', async () => {
    await reconciler(1);
    const ep = await api.get<Endpoints>(endpointsRef);
    expect(ep.metadata.labels).toEqual({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    expect(ep.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    const slice = await api.get<EndpointSlice>({ ...slicesRef, name: 'kubernetes' });
    expect(slice).toMatchObject({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] });
    expect(slice.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'kubernetes' });
    expect(slice.metadata.ownerReferences).toBeUndefined();
    const leases = (await api.list<Lease>(leasesRef, { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' })).items;
    expect(leases.map((l) => [l.metadata.name, l.spec?.holderIdentity, l.metadata.labels?.['kubernetes.io/hostname']])).toEqual([['apiserver-1', 'apiserver-1_run', 'cloud-1']]);
  });

  it('adds a second cloud, drops a killed one once its Lease expires, and one stopping cleanly at once', async () => {
    await reconciler(1);
    const rv = (await api.get<Endpoints>(endpointsRef)).metadata.resourceVersion;
    await f.clock.advance(30_000);
    expect((await api.get<Endpoints>(endpointsRef)).metadata.resourceVersion).toBe(rv); // renewals, but no write of the same Endpoints

    const cloud2 = await reconciler(2);
    expect(await listed()).toEqual({ endpoints: ['10.0.0.1', '10.0.0.2'], slice: ['10.0.0.1', '10.0.0.2'], slices: ['kubernetes'] });

    second.cut(); // killed: it renews nothing from now on
    await f.clock.advance(10_000);
    expect((await listed()).endpoints).toEqual(['10.0.0.1', '10.0.0.2']); // its Lease (15 s) still holds
    await f.clock.advance(10_000);
    expect(await listed()).toEqual({ endpoints: ['10.0.0.1'], slice: ['10.0.0.1'], slices: ['kubernetes'] });

    second.heal(); // back: it renews its Lease and lists itself again
    await cloud2.reconcile();
    expect((await listed()).endpoints).toEqual(['10.0.0.1', '10.0.0.2']);
    await cloud2.close();
    expect(await listed()).toEqual({ endpoints: ['10.0.0.1'], slice: ['10.0.0.1'], slices: ['kubernetes'] });
    const leases = (await api.list<Lease>(leasesRef, { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' })).items;
    expect(leases.map((l) => l.metadata.name)).toEqual(['apiserver-1']);
    expect(await masterLeases()).toEqual(['/registry/masterleases/apiserver-1']);
  });

  it('takes the addresses only from the master leases in the store, never from a Lease written through the API', async () => {
    const forged: Lease = {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: 'apiserver-evil', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' }, annotations: { 'kedge.io/advertise-address': '10.66.66.66', 'kedge.io/secure-port': '6443' } },
      spec: { holderIdentity: 'apiserver-evil_x', leaseDurationSeconds: 15, renewTime: new Date(f.clock.now()).toISOString() },
    };
    await api.create<Lease>(leasesRef, forged);
    await reconciler(1);
    await f.clock.advance(10_000);
    expect(await listed()).toEqual({ endpoints: ['10.0.0.1'], slice: ['10.0.0.1'], slices: ['kubernetes'] });
    expect(await masterLeases()).toEqual(['/registry/masterleases/apiserver-1']);
    // No API resource serves the master leases' keys.
    expect((await f.json('GET', '/api/v1/masterleases')).status).toBe(404);
    expect((await f.json('GET', '/api/v1/namespaces/default/masterleases')).status).toBe(404);
  });

  it('recreates the kubernetes Service deleted, at the next pass, and leaves one that exists as it is', async () => {
    const service = { resource: 'services', namespace: 'default', name: 'kubernetes' };
    await reconciler(1);
    await api.delete(service);
    await f.clock.advance(10_000);
    expect((await api.get<Service>(service)).spec).toMatchObject({ clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443 }] });
    const edited = await api.replace<Service>(service, { ...(await api.get<Service>(service)), metadata: { ...(await api.get<Service>(service)).metadata, labels: { mine: 'yes' } } });
    await f.clock.advance(10_000);
    expect((await api.get<Service>(service)).metadata.resourceVersion).toBe(edited.metadata.resourceVersion);
  });

  it('keeps the last address when the last cloud stops (kube never erases every endpoint), and puts an edited Endpoints back', async () => {
    const cloud1 = await reconciler(1);
    await api.replace<Endpoints>(endpointsRef, { ...(await api.get<Endpoints>(endpointsRef)), subsets: [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] });
    await f.clock.advance(10_000);
    expect((await listed()).endpoints).toEqual(['10.0.0.1']);
    await cloud1.close();
    expect((await listed()).endpoints).toEqual(['10.0.0.1']);
  });

  it('deletes the Lease and master lease of a cloud gone for an hour', async () => {
    const gone = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'apiserver-old', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } }, spec: { holderIdentity: 'x', leaseDurationSeconds: 15, renewTime: new Date(f.clock.now() - 3_601_000).toISOString() } };
    await api.create<Lease>(leasesRef, gone);
    await f.store.create('/registry/masterleases/apiserver-old', { ip: '10.0.0.9', port: 6443, holder: 'x', renewTime: new Date(f.clock.now() - 3_601_000).toISOString() });
    await reconciler(1);
    expect(await masterLeases()).toEqual(['/registry/masterleases/apiserver-1']);
    const leases = (await api.list<Lease>(leasesRef, { labelSelector: 'apiserver.kubernetes.io/identity=kube-apiserver' })).items;
    expect(leases.map((l) => l.metadata.name)).toEqual(['apiserver-1']);
  });

  it('says once that it cannot reach the store, and once that it can again', async () => {
    const logger = memoryLogger('apiserver');
    await reconciler(2, logger);
    second.cut();
    await f.clock.advance(30_000);
    second.heal();
    await f.clock.advance(10_000);
    expect(logger.lines.filter((l) => /could not reconcile the kubernetes Service endpoints/.test(l))).toHaveLength(1);
    expect(logger.lines.filter((l) => /reconciling the kubernetes Service endpoints again/.test(l))).toHaveLength(1);
    expect((await listed()).endpoints).toEqual(['10.0.0.2']);
  });
});
