import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { EndpointSlice } from '../../shared/cluster-object-types.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Endpoints } from '../../shared/service-types.js';
import type { Node } from '../../shared/types.js';

const endpointsRef = { resource: 'endpoints', namespace: 'default', name: 'kubernetes' };
const slicesRef = { resource: 'endpointslices', group: 'discovery.k8s.io', namespace: 'default' };
const portOf = (cloud: Cloud): number => Number(new URL(cloud.apiUrl).port);

/** Two clouds on one store and one machine: each lists itself in `default/kubernetes`, at its advertised address and its own port. */
describe('several clouds in the kubernetes Service', () => {
  const clock = new FakeClock(realClock.now());
  const store = new MemoryStore();
  let dir: string;
  const clouds: Cloud[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-kubernetes-ep-'));
    clouds.push(await startCloud({ dataDir: join(dir, 'cloud-1'), apiPort: 0, mqttPort: 0, store, clock, logger: silentLogger, advertiseAddress: '10.11.12.13', controlPlaneNode: 'cp-1' }));
    clouds.push(await startCloud({ dataDir: join(dir, 'cloud-2'), apiPort: 0, mqttPort: 0, store, clock, logger: silentLogger }));
  });
  afterAll(async () => {
    for (const c of clouds) await c.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists each at its advertised address and port, one subset and one slice per port; a clean stop takes it out', async () => {
    const [one, two] = clouds as [Cloud, Cloud];
    const bySubset = (ep: Endpoints) => (ep.subsets ?? []).map((s) => [s.addresses?.map((a) => a.ip), s.ports?.[0]?.port]);
    const expected = [[['10.11.12.13'], portOf(one)], [['127.0.0.1'], portOf(two)]].sort((a, b) => (a[1] as number) - (b[1] as number));
    expect(bySubset(await two.api.get<Endpoints>(endpointsRef))).toEqual(expected);
    const slices = (await two.api.list<EndpointSlice>(slicesRef, { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
    expect(slices.map((s) => [s.metadata.name, s.endpoints.map((e) => e.addresses[0]), s.ports?.[0]?.port])).toEqual(
      expected.map(([ips, port], i) => [i === 0 ? 'kubernetes' : `kubernetes-${port}`, ips, port]),
    );
    // The advertised address is the cloud's node's InternalIP too.
    expect((await one.api.get<Node>({ resource: 'nodes', name: 'cp-1' })).status?.addresses?.[0]).toEqual({ type: 'InternalIP', address: '10.11.12.13' });

    await one.stop();
    clouds.shift();
    expect(bySubset(await two.api.get<Endpoints>(endpointsRef))).toEqual([[['127.0.0.1'], portOf(two)]]);
    const left = (await two.api.list<EndpointSlice>(slicesRef, { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
    expect(left.map((s) => s.metadata.name)).toEqual(['kubernetes']);
  });
});
