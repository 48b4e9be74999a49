import { describe, expect, it } from 'vitest';
import { cpuText, memoryText } from '../../cloud/apiserver/metrics/metrics-objects.js';
import { formatGoDuration } from '../../shared/go-duration.js';
import type { NodeUsageReport } from '../../cloud/apiserver/metrics/metrics-resources.js';
import type { Node, Pod } from '../../shared/types.js';
import { apiFixture, VIEWER_TOKEN } from '../support/api-fixture.js';

const node = (name: string, labels: Record<string, string>): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
const pod = (namespace: string, name: string, nodeName: string, labels: Record<string, string> = {}): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, labels }, spec: { nodeName, containers: [{ name: 'app', image: 'i' }, { name: 'side', image: 'i' }] },
});
const usage = (p: Pod, cpu: string, memory: string) => ({
  namespace: p.metadata.namespace!, name: p.metadata.name!, uid: p.metadata.uid!, containers: [{ name: 'app', cpu, memory }, { name: 'side', cpu: '1000000n', memory: '1024Ki' }],
});

/** An apiserver whose usage source says what the test sets, with edge-1 (reporting), edge-2 (not) and pods on them. */
async function metricsApi() {
  let reports: NodeUsageReport[] = [];
  const f = await apiFixture({ usage: { nodeUsages: () => reports } });
  const admin = f.api.loopback('admin-token');
  await admin.create({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
  for (const n of [node('edge-1', { zone: 'a' }), node('edge-2', { zone: 'b' })]) await admin.create({ resource: 'nodes' }, n);
  const created = async (p: Pod): Promise<Pod> => admin.create<Pod>({ resource: 'pods', namespace: p.metadata.namespace! }, p);
  const web = await created(pod('default', 'web', 'edge-1', { app: 'web' }));
  const cart = await created(pod('shop', 'cart', 'edge-1', { app: 'cart' }));
  const elsewhere = await created(pod('default', 'elsewhere', 'edge-2'));
  const time = Date.parse('2026-01-02T03:04:05.678Z');
  const set = (pods: ReturnType<typeof usage>[]) => {
    reports = [{ node: 'edge-1', usage: { time, windowMs: 15_000, node: { cpu: '350000000n', memory: '204800Ki' }, pods } }];
  };
  set([usage(web, '250000000n', '65536Ki'), usage(cart, '5000000n', '2048Ki'), usage(elsewhere, '7n', '7Ki'), { ...usage(web, '1n', '1Ki'), name: 'stale', uid: 'old-uid' }]);
  return { f, set, web };
}

describe('metrics.k8s.io/v1beta1', () => {
  it('is discovered: the group in /apis, nodes (NodeMetrics) and pods (PodMetrics) with get and list', async () => {
    const { f } = await metricsApi();
    const groups = await f.json<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>('GET', '/apis');
    expect(groups.body.groups.find((g) => g.name === 'metrics.k8s.io')?.preferredVersion.groupVersion).toBe('metrics.k8s.io/v1beta1');
    const list = await f.json<{ groupVersion: string; resources: unknown[] }>('GET', '/apis/metrics.k8s.io/v1beta1');
    expect(list.body.groupVersion).toBe('metrics.k8s.io/v1beta1');
    expect(list.body.resources).toEqual([
      { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
      { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
    ]);
  });

  it('serves NodeMetrics shaped as metrics-server does, with the node labels to select by; a node without usage is left out', async () => {
    const { f } = await metricsApi();
    const list = await f.json<{ kind: string; apiVersion: string; items: unknown[] }>('GET', '/apis/metrics.k8s.io/v1beta1/nodes');
    expect(list.body).toMatchObject({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1' });
    expect(list.body.items).toEqual([{
      kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: 'edge-1', labels: { zone: 'a' }, creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
      timestamp: '2026-01-02T03:04:05Z', window: '15s', usage: { cpu: '350000000n', memory: '204800Ki' },
    }]);
    const zone = async (value: string) => (await f.json<{ items: { metadata: { name: string } }[] }>('GET', '/apis/metrics.k8s.io/v1beta1/nodes', { query: { labelSelector: `zone=${value}` } })).body.items.map((i) => i.metadata.name);
    expect(await zone('a')).toEqual(['edge-1']);
    expect(await zone('b')).toEqual([]);
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/nodes/edge-1')).body).toMatchObject({ kind: 'NodeMetrics', metadata: { name: 'edge-1' } });
  });

  it('answers 404 as metrics-server: for a node with no usage, and for no such node', async () => {
    const { f } = await metricsApi();
    const away = await f.json<{ reason: string; message: string; details: unknown }>('GET', '/apis/metrics.k8s.io/v1beta1/nodes/edge-2');
    expect(away.status).toBe(404);
    expect(away.body).toMatchObject({ reason: 'NotFound', message: 'nodemetrics.metrics.k8s.io "edge-2" not found', details: { name: 'edge-2', group: 'metrics.k8s.io', kind: 'nodemetrics' } });
    const none = await f.json<{ message: string }>('GET', '/apis/metrics.k8s.io/v1beta1/nodes/edge-9');
    expect([none.status, none.body.message]).toEqual([404, 'nodes "edge-9" not found']);
    const noPod = await f.json<{ message: string }>('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/elsewhere');
    expect([noPod.status, noPod.body.message]).toEqual([404, 'podmetrics.metrics.k8s.io "elsewhere" not found']);
  });

  it("serves PodMetrics in every namespace and in one, by labels; only pods bound to the reporting node and of the reported uid", async () => {
    const { f } = await metricsApi();
    type List = { kind: string; items: { metadata: { namespace: string; name: string; labels: Record<string, string> }; containers: unknown[]; window: string }[] };
    const all = await f.json<List>('GET', '/apis/metrics.k8s.io/v1beta1/pods');
    expect(all.body.kind).toBe('PodMetricsList');
    expect(all.body.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['default/web', 'shop/cart']);
    const [web] = all.body.items;
    expect(web).toMatchObject({ kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', metadata: { labels: { app: 'web' } }, timestamp: '2026-01-02T03:04:05Z', window: '15s' });
    expect(web!.containers).toEqual([{ name: 'app', usage: { cpu: '250000000n', memory: '65536Ki' } }, { name: 'side', usage: { cpu: '1000000n', memory: '1024Ki' } }]);
    const shop = await f.json<List>('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods');
    expect(shop.body.items.map((i) => i.metadata.name)).toEqual(['cart']);
    const byLabel = await f.json<List>('GET', '/apis/metrics.k8s.io/v1beta1/pods', { query: { labelSelector: 'app in (cart)' } });
    expect(byLabel.body.items.map((i) => i.metadata.name)).toEqual(['cart']);
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web')).body).toMatchObject({ metadata: { name: 'web' } });
  });

  it('lets viewers read, as the view role does, and refuses writes and watches', async () => {
    const { f } = await metricsApi();
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/pods', { token: VIEWER_TOKEN })).status).toBe(200);
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/nodes', { token: VIEWER_TOKEN })).status).toBe(200);
    expect((await f.json('POST', '/apis/metrics.k8s.io/v1beta1/nodes', { body: { metadata: { name: 'x' } } })).status).toBe(405);
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/nodes', { query: { watch: 'true' } })).status).toBe(405);
  });

  it("prints tables as metrics-server does: Name, cpu, memory, Window (a pod's containers summed)", async () => {
    const { f } = await metricsApi();
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const table = await f.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>('GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', { accept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'cpu', 'memory', 'Window']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['web', '251m', '65Mi', '15s']]);
  });

  it('is not served without a usage source (kubectl: Metrics API not available)', async () => {
    const f = await apiFixture();
    expect((await f.json('GET', '/apis/metrics.k8s.io/v1beta1/nodes')).status).toBe(404);
  });

  it.each([[0, '0s'], [500, '500ms'], [15_000, '15s'], [10_500, '10.5s'], [60_000, '1m0s'], [90_000, '1m30s'], [3_723_000, '1h2m3s']])('writes a window of %i ms as Go does: %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it('writes table amounts as Quantity.String() does', () => {
    expect([0n, 1n, 250_000_000n, 2_000_000_000n, 1_500_000_000n, 123_456n].map(cpuText)).toEqual(['0', '1n', '250m', '2', '1500m', '123456n']);
    const bytes = (n: number): bigint => BigInt(n) * 1_000_000_000n;
    expect([0, 1500, 65536 * 1024, 66560 * 1024, 1024 ** 3, 1000 * 1024].map((n) => memoryText(bytes(n)))).toEqual(['0', '1500', '64Mi', '65Mi', '1Gi', '1000Ki']);
  });
});
