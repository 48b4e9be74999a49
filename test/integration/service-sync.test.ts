import { afterEach, describe, expect, it } from 'vitest';
import { cachedEndpoints, cachedServices, ownNode } from '../../edge/metamanager/network-objects.js';
import { FakeClock } from '../../shared/clock.js';
import type { SyncedMessage } from '../../shared/protocol/envelope.js';
import type { Endpoints, Service } from '../../shared/service-types.js';
import type { Namespace, Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const services = { resource: 'services', namespace: 'shop' };
const endpoints = { resource: 'endpoints', namespace: 'shop' };
const pod = (name: string, node: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop' }, spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/app:1' }] } });
/** A Service without a selector: its Endpoints are written by hand, so each change is the test's. */
const service = (name: string, type: Service['spec']['type'] = 'ClusterIP'): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'shop' }, spec: { type, ports: [{ port: 80, targetPort: 8080 }] } });
const addresses = (name: string, ...ips: string[]): Endpoints => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: 'shop' }, subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ port: 8080 }] }] });

type C = Cluster<FakeClock>;
const cutAndWait = async (c: C, node: string): Promise<void> => {
  c.cut(node);
  await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes(node), 'the cloud to notice the cut', { budgetMs: 2 * c.timing.keepaliveMs });
};
/** The Services a node holds, as namespace/name, sorted. */
const servicesOn = (c: C, node: string): string[] => cachedServices(c.edge(node).cache).map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort();
const endpointIps = (c: C, node: string, name: string): string[] | undefined =>
  cachedEndpoints(c.edge(node).cache).find((e) => e.metadata.namespace === 'shop' && e.metadata.name === name)?.subsets?.flatMap((s) => (s.addresses ?? []).map((a) => a.ip));

describe('Services, Endpoints and its own Node reach an edge, and stay there offline [SYNC-19]', () => {
  let cluster: C | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  /** Two edges; edge-1 runs a pod of namespace shop, edge-2 none; Service web (ClusterIP) with its Endpoints. */
  const start = async (): Promise<C> => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000 } }));
    await c.api.create<Namespace>({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await c.api.create(services, service('web'));
    await c.api.create(endpoints, addresses('web', '127.64.1.2'));
    await c.api.create({ resource: 'pods', namespace: 'shop' }, pod('app', 'edge-1'));
    await runUntil(c.clock, () => endpointIps(c, 'edge-1', 'web')?.length === 1, 'edge-1 to hold web and its Endpoints');
    return c;
  };

  it('a ClusterIP Service reaches the node with a pod of its namespace, a NodePort one every node; Endpoints changes follow', async () => {
    const c = await start();
    expect(servicesOn(c, 'edge-1')).toEqual(['default/kubernetes', 'shop/web']);
    expect([servicesOn(c, 'edge-2'), endpointIps(c, 'edge-2', 'web')]).toEqual([['default/kubernetes'], undefined]);
    // The cloud's apiserver, as its lease endpoint reconciler lists it: on every edge, for pods to reach the API.
    const port = Number(new URL(c.cloud.apiUrl).port);
    for (const node of ['edge-1', 'edge-2']) {
      const apiserver = cachedEndpoints(c.edge(node).cache).find((e) => e.metadata.namespace === 'default' && e.metadata.name === 'kubernetes');
      expect(apiserver?.subsets).toEqual([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }]);
    }

    await c.api.create(services, service('entry', 'NodePort'));
    await c.api.create(endpoints, addresses('entry', '127.64.1.3'));
    await runUntil(c.clock, () => ['edge-1', 'edge-2'].every((n) => endpointIps(c, n, 'entry')?.length === 1), 'the NodePort Service and its Endpoints on both edges');

    await c.api.replace({ ...endpoints, name: 'web' }, { ...(await c.api.get<Endpoints>({ ...endpoints, name: 'web' })), subsets: addresses('web', '127.64.1.2', '127.64.1.4').subsets });
    await runUntil(c.clock, () => endpointIps(c, 'edge-1', 'web')?.length === 2, 'the changed Endpoints on edge-1');
    expect(endpointIps(c, 'edge-2', 'web')).toBeUndefined();

    // The pod leaves edge-1: so do the namespace's ClusterIP Services; the NodePort one stays.
    await c.api.delete({ resource: 'pods', namespace: 'shop', name: 'app' }, { gracePeriodSeconds: 0 });
    await runUntil(c.clock, () => !servicesOn(c, 'edge-1').includes('shop/web'), 'web gone from edge-1 with the last pod of shop');
    expect(servicesOn(c, 'edge-1')).toEqual(['default/kubernetes', 'shop/entry']);
  });

  it('each edge holds its own Node with its podCIDR; a node cut off gets exactly the difference on hello, and keeps it all through a restart offline', async () => {
    const c = await start();
    let podCIDR: string | undefined;
    await runUntil(c.clock, async () => (podCIDR = (await c.api.get<Node>({ resource: 'nodes', name: 'edge-1' })).spec?.podCIDR) !== undefined, 'node IPAM to give edge-1 a podCIDR');
    await runUntil(c.clock, () => ownNode(c.edge('edge-1').cache, 'edge-1')?.spec?.podCIDR === podCIDR, 'edge-1 to hold its podCIDR');
    expect(ownNode(c.edge('edge-2').cache, 'edge-1')).toBeUndefined();
    expect(ownNode(c.edge('edge-2').cache, 'edge-2')?.metadata.name).toBe('edge-2');
    await c.api.create(services, service('old'));
    await runUntil(c.clock, () => servicesOn(c, 'edge-1').includes('shop/old'), 'old on edge-1');

    await cutAndWait(c, 'edge-1');
    await c.api.replace({ ...endpoints, name: 'web' }, { ...(await c.api.get<Endpoints>({ ...endpoints, name: 'web' })), subsets: addresses('web', '127.64.1.9').subsets });
    await c.api.delete({ ...services, name: 'old' });
    await c.clock.advance(2_000);
    expect([endpointIps(c, 'edge-1', 'web'), servicesOn(c, 'edge-1')]).toEqual([['127.64.1.2'], ['default/kubernetes', 'shop/old', 'shop/web']]); // offline: the cached ones

    const synced: SyncedMessage[] = [];
    const subscription = c.edge('edge-1').synced$.subscribe((m) => synced.push(m));
    c.heal('edge-1');
    await runUntil(c.clock, () => synced.length > 0 && endpointIps(c, 'edge-1', 'web')?.[0] === '127.64.1.9', 'edge-1 resynced');
    subscription.unsubscribe();
    expect(synced[0]!.body).toMatchObject({ applies: 1, deletes: 1 }); // the changed Endpoints, the deleted Service's tombstone
    expect(servicesOn(c, 'edge-1')).toEqual(['default/kubernetes', 'shop/web']);

    await cutAndWait(c, 'edge-1');
    await c.stopEdge('edge-1');
    await c.startEdge('edge-1');
    expect(c.cloud.hub.connectedNodes()).not.toContain('edge-1');
    const cache = c.edge('edge-1').cache;
    expect([servicesOn(c, 'edge-1'), endpointIps(c, 'edge-1', 'web'), ownNode(cache, 'edge-1')?.spec?.podCIDR]).toEqual([['default/kubernetes', 'shop/web'], ['127.64.1.9'], podCIDR]);
  });
});
