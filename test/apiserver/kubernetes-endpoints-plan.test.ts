import { describe, expect, it } from 'vitest';
import { apiserverId, renewedApiserverLease, staleLeases, type ApiserverFacts } from '../../cloud/apiserver/reconcilers/apiserver-lease.js';
import { leaseLive, liveApiservers, sightLeases } from '../../cloud/apiserver/reconcilers/lease-sightings.js';
import { masterLeaseEntry, renewedMasterLease, staleMasterLeases, type MasterLeaseEntry } from '../../cloud/apiserver/reconcilers/master-leases.js';
import { planKubernetesEndpoints, planKubernetesSlices } from '../../cloud/apiserver/reconcilers/kubernetes-endpoints.js';
import type { EndpointSlice } from '../../shared/cluster-object-types.js';
import type { Endpoints } from '../../shared/service-types.js';

const T0 = Date.UTC(2026, 0, 1);
const realTime = { timeScale: 1 };
const facts = (n: number, ip: string, port = 6443): ApiserverFacts => ({ id: `apiserver-${n}`, holder: `apiserver-${n}_u`, hostname: `host-${n}`, ip, port });
/** Apiserver n's master lease renewed at `at`, as read from the store. */
const master = (n: number, ip: string, at: number): MasterLeaseEntry => ({ key: `/registry/masterleases/apiserver-${n}`, lease: renewedMasterLease(facts(n, ip), at), modRevision: n });

const table: [string, number, { timeScale: number }, boolean][] = [
  ['just renewed', 0, realTime, true],
  ['15 s on', 15_000, realTime, true],
  ['past 15 s', 15_001, realTime, false],
  ['past 1.5 s at time scale 10', 1_501, { timeScale: 10 }, false],
  ['1.5 s at time scale 10', 1_500, { timeScale: 10 }, true],
];

describe('apiserver identity Leases', () => {
  it('are named as kube-apiserver names them: apiserver- and 26 lowercase base32 characters of the hash', () => {
    const id = apiserverId('host-1:/data/cloud');
    expect(id).toMatch(/^apiserver-[a-z2-7]{26}$/);
    expect(apiserverId('host-1:/data/cloud')).toBe(id);
    expect(apiserverId('host-1:/data/cloud-2')).not.toBe(id);
  });

  it('carry the identity and host name labels, the advertised IP and port, an hour renewed now', () => {
    const lease = renewedApiserverLease(facts(1, '10.0.0.1'), T0);
    expect(lease.metadata).toMatchObject({
      name: 'apiserver-1',
      namespace: 'kube-system',
      labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'host-1' },
      annotations: { 'kedge.io/advertise-address': '10.0.0.1', 'kedge.io/secure-port': '6443' },
    });
    expect(lease.spec).toEqual({ holderIdentity: 'apiserver-1_u', leaseDurationSeconds: 3600, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z' });
    const renewed = renewedApiserverLease(facts(1, '10.0.0.1'), T0 + 10_000, { ...lease, metadata: { ...lease.metadata, resourceVersion: '7' } });
    expect(renewed.metadata.resourceVersion).toBe('7');
    expect(renewed.spec?.acquireTime).toBe(lease.spec?.acquireTime);
    expect(renewed.spec?.renewTime).toBe('2026-01-01T00:00:10.000000Z');
  });

  it('leave out a host name that cannot be a label value', () => {
    expect(renewedApiserverLease({ ...facts(1, '10.0.0.1'), hostname: 'x'.repeat(64) }, T0).metadata.labels).toEqual({ 'apiserver.kubernetes.io/identity': 'kube-apiserver' });
  });

  it('not renewed for an hour are stale', () => {
    const leases = [renewedApiserverLease(facts(1, '10.0.0.2'), T0), renewedApiserverLease(facts(3, '10.0.0.3'), T0 - 3_601_000)];
    expect(staleLeases(leases, T0, realTime).map((l) => l.metadata.name)).toEqual(['apiserver-3']);
  });
});

describe('apiservers\' master leases', () => {
  it.each(table)('are live %s: %s', (_name, after, timing, live) => {
    const lease = master(1, '10.0.0.1', T0);
    expect(leaseLive(lease, sightLeases(new Map(), [lease], T0), T0 + after, timing)).toBe(live);
  });

  it('hold the IP, port, holder and renew time, and are read only when they say all four', () => {
    expect(renewedMasterLease(facts(1, '10.0.0.1'), T0)).toEqual({ ip: '10.0.0.1', port: 6443, holder: 'apiserver-1_u', renewTime: '2026-01-01T00:00:00.000000Z' });
    const kv = (value: unknown) => ({ key: '/registry/masterleases/a', value, createRevision: 1, modRevision: 2 });
    expect(masterLeaseEntry(kv(renewedMasterLease(facts(1, '10.0.0.1'), T0)))).toEqual({ key: '/registry/masterleases/a', lease: renewedMasterLease(facts(1, '10.0.0.1'), T0), modRevision: 2 });
    for (const bad of [null, 'x', { ...renewedMasterLease(facts(1, 'not-an-ip'), T0) }, { ...renewedMasterLease(facts(1, '10.0.0.1', 0), T0) }, { ip: '10.0.0.1', port: 6443 }]) expect(masterLeaseEntry(kv(bad))).toBeUndefined();
  });

  it('are live for 15 s from when this cloud saw them renewed, whatever the other machine\'s clock says', () => {
    const ahead = master(1, '10.0.0.1', T0 + 60_000); // its clock a minute ahead
    const behind = master(2, '10.0.0.2', T0 - 60_000); // a minute behind: taken for expired at first
    let seen = sightLeases(new Map(), [ahead, behind], T0);
    expect([leaseLive(ahead, seen, T0 + 15_000, realTime), leaseLive(behind, seen, T0, realTime)]).toEqual([true, false]);
    expect(leaseLive(ahead, seen, T0 + 15_001, realTime)).toBe(false); // not renewed since: expired on this clock
    const behindRenewed = master(2, '10.0.0.2', T0 - 50_000); // its next renewal, 10 s on
    seen = sightLeases(seen, [ahead, behindRenewed], T0 + 10_000);
    expect(leaseLive(behindRenewed, seen, T0 + 25_000, realTime)).toBe(true);
    expect(leaseLive(behindRenewed, seen, T0 + 25_001, realTime)).toBe(false);
  });

  it('list the endpoints of the live ones; those gone an hour are stale', () => {
    const leases = [master(1, '10.0.0.2', T0), master(2, '10.0.0.1', T0 - 20_000), master(3, '10.0.0.3', T0 - 3_601_000)];
    expect(liveApiservers(leases, sightLeases(new Map(), leases, T0), T0, realTime)).toEqual([{ ip: '10.0.0.2', port: 6443 }]);
    expect(staleMasterLeases(leases, T0, realTime).map((l) => l.key)).toEqual(['/registry/masterleases/apiserver-3']);
  });
});

describe('default/kubernetes Endpoints', () => {
  it('are created with one subset of the apiservers, sorted, port https, labelled skip-mirror only', () => {
    const actions = planKubernetesEndpoints([{ ip: '10.0.0.2', port: 6443 }, { ip: '10.0.0.1', port: 6443 }, { ip: '10.0.0.1', port: 6443 }], undefined);
    expect(actions).toEqual([{
      type: 'create',
      endpoints: {
        apiVersion: 'v1', kind: 'Endpoints',
        metadata: { namespace: 'default', name: 'kubernetes', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
      },
    }]);
  });

  it('are left as they are when they list the same, updated (labels too) when not', () => {
    const created = planKubernetesEndpoints([{ ip: '10.0.0.1', port: 6443 }], undefined)[0]!;
    const stored = { ...(created as { endpoints: Endpoints }).endpoints, metadata: { ...(created as { endpoints: Endpoints }).endpoints.metadata, resourceVersion: '3' } };
    expect(planKubernetesEndpoints([{ ip: '10.0.0.1', port: 6443 }], stored)).toEqual([]);
    const [update] = planKubernetesEndpoints([{ ip: '10.0.0.1', port: 6443 }, { ip: '10.0.0.9', port: 6443 }], stored);
    expect(update).toMatchObject({ type: 'update', endpoints: { metadata: { resourceVersion: '3' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.9' }] }] } });
    const relabelled = planKubernetesEndpoints([{ ip: '10.0.0.1', port: 6443 }], { ...stored, metadata: { ...stored.metadata, labels: { a: 'b' } } });
    expect(relabelled).toMatchObject([{ type: 'update', endpoints: { metadata: { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } } }]);
  });

  it('get one subset per port when apiservers listen on different ones; IPv6 addresses are left out', () => {
    const [action] = planKubernetesEndpoints([{ ip: '127.0.0.1', port: 8081 }, { ip: '127.0.0.1', port: 8080 }, { ip: '::1', port: 8080 }], undefined);
    expect((action as { endpoints: Endpoints }).endpoints.subsets).toEqual([
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 8080, protocol: 'TCP' }] },
      { addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 8081, protocol: 'TCP' }] },
    ]);
  });

  it('are never emptied: with no live apiserver nothing is written (kube refuses to erase every endpoint)', () => {
    expect(planKubernetesEndpoints([], undefined)).toEqual([]);
    expect(planKubernetesSlices([], [])).toEqual([]);
  });
});

describe('the kubernetes EndpointSlice', () => {
  const slice = (name: string, ips: string[], port = 6443, extra: Partial<EndpointSlice> = {}): EndpointSlice => ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' }, resourceVersion: '5' },
    addressType: 'IPv4', endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })), ports: [{ name: 'https', port, protocol: 'TCP' }], ...extra,
  });

  it('is created named kubernetes: IPv4, the service-name label only, ready endpoints, port https', () => {
    const actions = planKubernetesSlices([{ ip: '10.0.0.2', port: 6443 }, { ip: '10.0.0.1', port: 6443 }], []);
    const { resourceVersion: _rv, ...metadata } = slice('kubernetes', []).metadata;
    expect(actions).toEqual([{ type: 'create', slice: { ...slice('kubernetes', ['10.0.0.1', '10.0.0.2']), metadata } }]);
  });

  it('is left alone when the same, updated when an apiserver comes or goes', () => {
    expect(planKubernetesSlices([{ ip: '10.0.0.1', port: 6443 }], [slice('kubernetes', ['10.0.0.1'])])).toEqual([]);
    expect(planKubernetesSlices([{ ip: '10.0.0.1', port: 6443 }], [slice('kubernetes', ['10.0.0.1', '10.0.0.2'])])).toEqual([{ type: 'update', slice: slice('kubernetes', ['10.0.0.1']) }]);
  });

  it('gets one more slice per further port; slices of other names or address types are replaced or deleted', () => {
    const actions = planKubernetesSlices([{ ip: '127.0.0.1', port: 8080 }, { ip: '127.0.0.1', port: 8081 }], [slice('kubernetes', ['127.0.0.1'], 8080), slice('kubernetes-abcde', ['10.1.1.1'])]);
    expect(actions.map((a) => [a.type, a.type === 'delete' ? a.name : a.slice.metadata.name])).toEqual([['delete', 'kubernetes-abcde'], ['create', 'kubernetes-8081']]);
    const ipv6 = planKubernetesSlices([{ ip: '10.0.0.1', port: 6443 }], [slice('kubernetes', ['::1'], 6443, { addressType: 'IPv6' })]);
    expect(ipv6.map((a) => a.type)).toEqual(['delete', 'create']);
  });
});
