import { afterEach, describe, expect, it } from 'vitest';
import { cachedPodObjects } from '../../edge/volumes/pod-objects.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

const pods = { resource: 'pods', namespace: 'default' };
const configMaps = { resource: 'configmaps', namespace: 'default' };
const secrets = { resource: 'secrets', namespace: 'default' };
/** What the edge holds for its pods: the pods and what they reference (not its Node, nor Services [SYNC-19]). */
const podObjects = (c: Cluster<FakeClock>, node: string) => c.edge(node).cache.objects().filter((o) => !['Node', 'Service', 'Endpoints'].includes(o.kind));

/** A pod pinned to `node` that reads ConfigMap `app-config` as env and mounts Secret `app-secret`. */
const app = (name: string, node: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { 'app-offline.kubeedge.io': 'autonomy' } },
  spec: {
    nodeName: node,
    containers: [{ name: 'main', image: 'kedge.io/app:1', env: [{ name: 'MODE', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'mode' } } }], volumeMounts: [{ name: 'secret', mountPath: '/etc/secret' }] }],
    volumes: [{ name: 'secret', secret: { secretName: 'app-secret' } }],
  },
});
const config = (mode: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config' }, data: { mode } });
const secret: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app-secret' }, type: 'Opaque', data: { password: 'aHVudGVyMg==' } };

describe('ConfigMaps and Secrets reach the edges whose pods reference them [SYNC-18]', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const start = async (): Promise<Cluster<FakeClock>> => (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 1_000 } }));
  const mode = (c: Cluster<FakeClock>, node: string): string | undefined => cachedPodObjects(c.edge(node).cache).configMap('default', 'app-config')?.data?.mode;
  /** A cluster where pod `web` on edge-1 references the ConfigMap (mode blue) and the Secret, and edge-1 holds both. */
  const startWithApp = async (): Promise<Cluster<FakeClock>> => {
    const c = await start();
    await c.api.create(configMaps, config('blue'));
    await c.api.create(secrets, secret);
    await c.api.create(pods, app('web', 'edge-1'));
    await runUntil(c.clock, () => mode(c, 'edge-1') === 'blue' && cachedPodObjects(c.edge('edge-1').cache).secret('default', 'app-secret'), 'edge-1 to hold the ConfigMap and the Secret');
    return c;
  };
  const cutAndWait = async (c: Cluster<FakeClock>, node: string): Promise<void> => {
    c.cut(node);
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes(node), 'the cloud to notice the cut', { budgetMs: 2 * c.timing.keepaliveMs });
  };

  it('only the node that needs them holds them; a change made while it is cut off arrives after heal; they go with the last pod, and come back with the next', async () => {
    const c = await startWithApp();
    expect(cachedPodObjects(c.edge('edge-1').cache).secret('default', 'app-secret')?.data).toEqual({ password: 'aHVudGVyMg==' });
    await runUntil(c.clock, async () => (await c.api.get<Pod>({ ...pods, name: 'web' })).status?.phase === 'Running', 'web Running');
    // The local API and edged's sandboxes are about pods only.
    const webUid = (await c.api.get<Pod>({ ...pods, name: 'web' })).metadata.uid;
    expect((await c.edgePods('edge-1')).map((p) => p.metadata.name)).toEqual(['web']);
    expect((await c.edge('edge-1').runtime.listSandboxes()).map((s) => s.podUid)).toEqual([webUid]);
    expect([mode(c, 'edge-2'), cachedPodObjects(c.edge('edge-2').cache).secret('default', 'app-secret')]).toEqual([undefined, undefined]);

    await cutAndWait(c, 'edge-1');
    const current = await c.api.get<ConfigMap>({ ...configMaps, name: 'app-config' });
    await c.api.replace({ ...configMaps, name: 'app-config' }, { ...current, data: { mode: 'green' } });
    await c.clock.advance(5_000);
    expect(mode(c, 'edge-1')).toBe('blue'); // offline: the cached one
    c.heal('edge-1');
    await runUntil(c.clock, () => mode(c, 'edge-1') === 'green', 'the change to reach edge-1 after heal');

    await c.api.delete({ ...pods, name: 'web' });
    await runUntil(c.clock, async () => (await c.api.list<Pod>(pods)).items.length === 0 && podObjects(c, 'edge-1').length === 0, 'web gone, and with it what it referenced');
    // Dropped, not tombstoned: no longer needed here is not gone for good.
    expect(c.edge('edge-1').cache.tombstoned(current.metadata.uid!)).toBe(false);
    expect(podObjects(c, 'edge-2')).toEqual([]);

    // A new pod needs the same ConfigMap (the same uid) again: it comes back.
    await c.api.create(pods, app('web-2', 'edge-1'));
    await runUntil(c.clock, () => mode(c, 'edge-1') === 'green', 'the same ConfigMap back on edge-1 with a new pod');
  });

  it('by name: a pod created before its ConfigMap gets it; one deleted and re-created is replaced under its new uid', async () => {
    const c = await start();
    await c.api.create(pods, app('web', 'edge-1'));
    await runUntil(c.clock, () => podObjects(c, 'edge-1').length === 1, 'the pod on edge-1');
    const first = await c.api.create<ConfigMap>(configMaps, config('blue'));
    await runUntil(c.clock, () => mode(c, 'edge-1') === 'blue', 'the ConfigMap created after its pod to reach edge-1');

    await c.api.delete({ ...configMaps, name: 'app-config' });
    const second = await c.api.create<ConfigMap>(configMaps, config('red'));
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    await runUntil(c.clock, () => cachedPodObjects(c.edge('edge-1').cache).configMap('default', 'app-config')?.metadata.uid === second.metadata.uid, 'the re-created ConfigMap on edge-1');
    expect(mode(c, 'edge-1')).toBe('red');
    expect(c.edge('edge-1').cache.objects().map((o) => o.uid)).not.toContain(first.metadata.uid);
  });

  it('an edge restarted while cut off still has its ConfigMap and Secret, from its durable cache', async () => {
    const c = await startWithApp();
    await cutAndWait(c, 'edge-1');
    await c.stopEdge('edge-1');
    await c.startEdge('edge-1');
    expect([mode(c, 'edge-1'), cachedPodObjects(c.edge('edge-1').cache).secret('default', 'app-secret')?.data]).toEqual(['blue', { password: 'aHVudGVyMg==' }]);
    expect(c.cloud.hub.connectedNodes()).not.toContain('edge-1');
  });
});
