import { AppsV1Api, CoreV1Api, KubeConfig, makeInformer, PatchStrategy, setHeaderOptions, Watch, type V1ConfigMap, type V1Deployment } from '@kubernetes/client-node';
import { Subject, takeUntil } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { ensureSystemNamespaces } from '../../cloud/apiserver/kinds/bootstrap.js';
import { startApiServer, type RunningApiServer } from '../../cloud/apiserver/http/http-server.js';
import { createApiServer } from '../../cloud/apiserver/pipeline.js';
import type { ApiRequest, ApiResponse } from '../../cloud/apiserver/request.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'client-node-token';

/**
 * A plain-HTTP apiserver whose watches the test can end from the server side (as the
 * apiserver's watch timeout does), to see the client reconnect.
 */
async function server() {
  const store = new MemoryStore();
  const api = createApiServer({ store, clock: realClock, logger: silentLogger, resources: clusterResources, tokens: [{ token: TOKEN, user: 'admin', role: 'admin' }] });
  await ensureSystemNamespaces(api.loopback(TOKEN));
  const closeWatches = new Subject<void>();
  let watchesServed = 0;
  const handler = async (req: ApiRequest): Promise<ApiResponse> => {
    const res = await api.handle(req);
    if (res.type !== 'watch') return res;
    watchesServed++;
    return { ...res, events: res.events.pipe(takeUntil(closeWatches)) };
  };
  const http = await startApiServer({ handler, gate: api.gate, port: 0 });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kedge', server: http.url, skipTLSVerify: true }],
    users: [{ name: 'admin', token: TOKEN }],
    contexts: [{ name: 'kedge', cluster: 'kedge', user: 'admin' }],
    currentContext: 'kedge',
  });
  return { http, kc, store, closeWatches: () => closeWatches.next(), watches: () => watchesServed };
}

describe('@kubernetes/client-node 1.4: typed clients and informers', () => {
  let http: RunningApiServer | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('creates, reads, replaces, patches and deletes a ConfigMap with CoreV1Api', async () => {
    const s = await server();
    http = s.http;
    const core = s.kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'settings' }, data: { color: 'blue' } } });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' });
    expect(read.data).toEqual({ color: 'blue' });
    const replaced = await core.replaceNamespacedConfigMap({ name: 'settings', namespace: 'default', body: { ...read, data: { color: 'green' } } as V1ConfigMap });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));
    const patched = await core.patchNamespacedConfigMap(
      { name: 'settings', namespace: 'default', body: { data: { size: 'L' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.data).toEqual({ color: 'green', size: 'L' });
    await core.deleteNamespacedConfigMap({ name: 'settings', namespace: 'default' });
    await expect(core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' })).rejects.toMatchObject({ code: 404 });
  });

  it('manages a Deployment with AppsV1Api, including its scale subresource', async () => {
    const s = await server();
    http = s.http;
    const apps = s.kc.makeApiClient(AppsV1Api);
    const body: V1Deployment = {
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body });
    expect(created.metadata?.generation).toBe(1);
    const scale = await apps.replaceNamespacedDeploymentScale({ name: 'web', namespace: 'default', body: { metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } } });
    expect(scale.spec?.replicas).toBe(3);
    const read = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect([read.spec?.replicas, read.metadata?.generation]).toEqual([3, 2]);
    expect((await apps.listNamespacedDeployment({ namespace: 'default' })).items.map((d) => d.metadata?.name)).toEqual(['web']);
    await apps.deleteNamespacedDeployment({ name: 'web', namespace: 'default' });
    await expect(apps.readNamespacedDeployment({ name: 'web', namespace: 'default' })).rejects.toMatchObject({ code: 404 });
  });

  it('keeps an informer delivering after the server closes its watch, and a Watch ends with it', async () => {
    const s = await server();
    http = s.http;
    const core = s.kc.makeApiClient(CoreV1Api);
    const informer = makeInformer(s.kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const seen: string[] = [];
    informer.on('add', (cm: V1ConfigMap) => seen.push(`add:${cm.metadata?.name}`));
    informer.on('update', (cm: V1ConfigMap) => seen.push(`update:${cm.metadata?.name}:${cm.data?.v}`));
    informer.on('delete', (cm: V1ConfigMap) => seen.push(`delete:${cm.metadata?.name}`));
    await informer.start();
    let plainWatchEnded = false;
    await new Watch(s.kc).watch('/api/v1/namespaces/default/configmaps', {}, () => {}, () => (plainWatchEnded = true));
    await waitFor(() => s.watches() === 2, 'both watches open');

    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'one' }, data: { v: '1' } } });
    await waitFor(() => seen.length === 1, 'first add');
    s.closeWatches();
    await waitFor(() => plainWatchEnded, 'the plain Watch sees the close');
    await waitFor(() => s.watches() === 3, 'the informer watches again');

    await core.patchNamespacedConfigMap({ name: 'one', namespace: 'default', body: { data: { v: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'two' } } });
    await core.deleteNamespacedConfigMap({ name: 'one', namespace: 'default' });
    await waitFor(() => seen.length === 4, 'events after the reconnect');
    expect(seen).toEqual(['add:one', 'update:one:2', 'add:two', 'delete:one']);
    await informer.stop();
  });
});
