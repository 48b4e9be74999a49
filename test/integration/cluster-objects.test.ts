import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { EndpointSlice, PodDisruptionBudget } from '../../shared/cluster-object-types.js';
import type { Lease } from '../../shared/config-types.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Service } from '../../shared/service-types.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

type C = Cluster<FakeClock>;
const leases = { resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease' };
const slices = { resource: 'endpointslices', group: 'discovery.k8s.io', namespace: 'default' };
const budgets = { resource: 'poddisruptionbudgets', group: 'policy', namespace: 'default' };
const pods = { resource: 'pods', namespace: 'default' };

const renewTimeOf = async (c: C, node: string): Promise<string | undefined> => (await c.api.get<Lease>({ ...leases, name: node }).catch(() => undefined))?.spec?.renewTime;
const pod = (name: string, node: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/web:1', ports: [{ containerPort: 8080 }] }] } });
const running = async (c: C, name: string): Promise<boolean> => (await c.api.get<Pod>({ ...pods, name })).status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false;

/** Node Leases, EndpointSlices and PodDisruptionBudgets in a cluster of two edges over the in-memory broker, on fake time. */
describe('cluster objects kept by the hub and the controllers', () => {
  let cluster: C | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  const start = async (): Promise<C> => {
    const c = (cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 2, timing: { keepaliveMs: 2_000 } }));
    await runUntil(c.clock, async () => (await renewTimeOf(c, 'edge-1')) !== undefined && (await renewTimeOf(c, 'edge-2')) !== undefined, 'a Lease per edge');
    return c;
  };

  it("renews each edge's Lease in kube-node-lease on its heartbeats, and stops for a node offline, which goes Unknown", async () => {
    const c = await start();
    const lease = await c.api.get<Lease>({ ...leases, name: 'edge-1' });
    const node = await c.api.get<Node>({ resource: 'nodes', name: 'edge-1' });
    expect(lease).toMatchObject({ metadata: { ownerReferences: [{ kind: 'Node', name: 'edge-1', uid: node.metadata.uid }] }, spec: { holderIdentity: 'edge-1', leaseDurationSeconds: 40 } });
    const first = lease.spec!.renewTime!;
    await runUntil(c.clock, async () => (await renewTimeOf(c, 'edge-1')) !== first, 'a renewal');
    expect(Date.parse((await renewTimeOf(c, 'edge-1'))!) - Date.parse(first)).toBeLessThanOrEqual(2 * c.timing.nodeStatusIntervalMs);

    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the hub to see edge-1 go', { budgetMs: 2 * c.timing.keepaliveMs });
    const last = await renewTimeOf(c, 'edge-1');
    await pass(c.clock, c.timing.nodeMonitorGraceMs, 1_000);
    expect(await renewTimeOf(c, 'edge-1')).toBe(last);
    expect(await renewTimeOf(c, 'edge-2')).not.toBe(last);
    await runUntil(c.clock, async () => (await c.api.get<Node>({ resource: 'nodes', name: 'edge-1' })).status?.conditions?.find((x) => x.type === 'Ready')?.status === 'Unknown', 'edge-1 Unknown');
  });

  it('keeps one EndpointSlice per Service with a selector beside its Endpoints, and honours a PodDisruptionBudget on eviction', async () => {
    const c = await start();
    const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
    await c.api.create({ resource: 'services', namespace: 'default' }, service);
    await c.api.create(pods, pod('web-1', 'edge-1'));
    await c.api.create(pods, pod('web-2', 'edge-2'));
    await runUntil(c.clock, async () => (await running(c, 'web-1')) && (await running(c, 'web-2')), 'both pods Ready');
    const sliceOf = async (): Promise<EndpointSlice[]> => (await c.api.list<EndpointSlice>(slices, { labelSelector: 'kubernetes.io/service-name=web' })).items;
    await runUntil(c.clock, async () => (await sliceOf())[0]?.endpoints?.length === 2, 'a slice with both pods');
    const [slice] = await sliceOf();
    expect(slice).toMatchObject({ metadata: { name: expect.stringMatching(/^web-[a-z0-9]{5}$/) }, addressType: 'IPv4', ports: [{ port: 8080, protocol: 'TCP' }] });
    expect(slice!.endpoints.map((e) => [e.nodeName, e.conditions])).toEqual([['edge-1', { ready: true, serving: true, terminating: false }], ['edge-2', { ready: true, serving: true, terminating: false }]].sort());

    await c.api.create(budgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } });
    const budget = async (): Promise<PodDisruptionBudget> => c.api.get<PodDisruptionBudget>({ ...budgets, name: 'web' });
    await runUntil(c.clock, async () => (await budget()).status?.disruptionsAllowed === 1, 'one disruption allowed');
    expect((await budget()).status).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, observedGeneration: 1, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods' }] });

    const evict = (name: string) => c.api.create({ ...pods, name, subresource: 'eviction' }, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });
    await evict('web-1');
    expect((await budget()).status?.disruptionsAllowed).toBe(0);
    const refused = await evict('web-2').catch((err: unknown) => err);
    expect(isKedgeError(refused, 'TooManyRequests') && [refused.message, refused.details?.causes]).toEqual([
      "Cannot evict pod as it would violate the pod's disruption budget.",
      [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }],
    ]);
    await runUntil(c.clock, async () => (await sliceOf())[0]?.endpoints?.length === 1, 'the evicted pod gone from the slice');
  });
});
