import { describe, expect, it } from 'vitest';
import type { EndpointSlice, PodDisruptionBudget } from '../../shared/cluster-object-types.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, pod, VIEWER_TOKEN, type ApiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const slices = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const budgets = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const pods = '/api/v1/namespaces/default/pods';

const slice = (extra: Partial<EndpointSlice> = {}): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { generateName: 'web-' }, addressType: 'IPv4',
  endpoints: [{ addresses: ['10.244.0.3'] }, { addresses: ['10.244.0.4'] }], ports: [{ name: 'http', port: 8080 }], ...extra,
});
const budget = (spec: PodDisruptionBudget['spec']): PodDisruptionBudget => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec });

/** A Running, Ready pod labelled app=web. */
async function readyPod(f: ApiFixture, name: string): Promise<void> {
  const created = await f.json<Pod>('POST', pods, { body: pod(name, { metadata: { name, labels: { app: 'web' } } }) });
  await f.json('PUT', `${pods}/${name}/status`, { body: { ...created.body, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } } });
}
const evict = (f: ApiFixture, name: string, deleteOptions?: unknown) =>
  f.json<Status>('POST', `${pods}/${name}/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...(deleteOptions !== undefined && { deleteOptions }) } });

describe('EndpointSlices (discovery.k8s.io/v1)', () => {
  it('are served with kube\'s columns, readable by a viewer', async () => {
    const f = await apiFixture();
    const created = await f.json<EndpointSlice>('POST', slices, { body: slice() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ metadata: { name: expect.stringMatching(/^web-/) }, ports: [{ protocol: 'TCP' }] });
    const table = await f.json<Table>('GET', slices, { accept: tableAccept, token: VIEWER_TOKEN });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    expect(table.body.rows[0]?.cells.slice(1, 4)).toEqual(['IPv4', '8080', '10.244.0.3,10.244.0.4']);
  });

  it('refuses an unknown addressType, an endpoint without addresses, and a changed addressType', async () => {
    const f = await apiFixture();
    const bad = await f.json<Status>('POST', slices, { body: slice({ metadata: { name: 'a' }, addressType: 'IPv5' as never, endpoints: [{ addresses: [] }] }) });
    expect([bad.status, bad.body.message]).toEqual([422, 'EndpointSlice "a" is invalid: [addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6", endpoints[0].addresses: Required value: must contain at least 1 address]']);
    const created = await f.json<EndpointSlice>('POST', slices, { body: slice({ metadata: { name: 'b' } }) });
    const changed = await f.json<Status>('PUT', `${slices}/b`, { body: { ...created.body, addressType: 'IPv6' } });
    expect([changed.status, changed.body.message]).toEqual([422, 'EndpointSlice "b" is invalid: addressType: Invalid value: "IPv6": field is immutable']);
  });
});

describe('PodDisruptionBudgets (policy/v1) and eviction', () => {
  it("are served with kube's columns and an empty status; both minAvailable and maxUnavailable is 422", async () => {
    const f = await apiFixture();
    const created = await f.json<PodDisruptionBudget>('POST', budgets, { body: budget({ minAvailable: '50%', selector: { matchLabels: { app: 'web' } } }) });
    expect(created.body.status).toEqual({ currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 });
    const table = await f.json<Table>('GET', budgets, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
    expect(table.body.rows[0]?.cells.slice(0, 4)).toEqual(['web', '50%', 'N/A', 0]);
    const both = await f.json<Status>('POST', budgets, { body: { ...budget({ minAvailable: 1, maxUnavailable: 1 }), metadata: { name: 'both' } } });
    expect([both.status, both.body.message]).toEqual([422, 'PodDisruptionBudget "both" is invalid: spec.minAvailable: Invalid value: 1: minAvailable and maxUnavailable cannot be both set']);
  });

  it('refuses an eviction the budget does not allow with 429 and the DisruptionBudget cause; one allowed is taken and recorded', async () => {
    const f = await apiFixture();
    await readyPod(f, 'web-1');
    await readyPod(f, 'web-2');
    const created = await f.json<PodDisruptionBudget>('POST', budgets, { body: budget({ minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    // What the disruption controller would write: the budget seen, with no disruption allowed.
    const status = { observedGeneration: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 0 };
    const none = await f.json<PodDisruptionBudget>('PUT', `${budgets}/web/status`, { body: { ...created.body, status } });
    const refused = await evict(f, 'web-1');
    expect(refused).toEqual({ status: 429, body: expect.objectContaining({
      reason: 'TooManyRequests', code: 429, message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 1 currently' }] },
    }) });
    expect((await f.json<Pod>('GET', `${pods}/web-1`)).status).toBe(200);

    await f.json('PUT', `${budgets}/web/status`, { body: { ...none.body, status: { ...status, currentHealthy: 2, disruptionsAllowed: 1 } } });
    expect((await evict(f, 'web-1', { dryRun: ['All'] })).status).toBe(201);
    expect((await f.json<PodDisruptionBudget>('GET', `${budgets}/web`)).body.status?.disruptionsAllowed).toBe(1);
    expect((await evict(f, 'web-1')).status).toBe(201);
    expect((await f.json<PodDisruptionBudget>('GET', `${budgets}/web`)).body.status).toMatchObject({
      disruptionsAllowed: 0, disruptedPods: { 'web-1': '2026-01-01T00:00:00Z' }, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }],
    });
    expect((await evict(f, 'web-2')).status).toBe(429);
  });

  it('lets a pod the budget does not count go: not yet running, or unready with the budget met', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('pending', { metadata: { name: 'pending', labels: { app: 'web' } } }) });
    const created = await f.json<PodDisruptionBudget>('POST', budgets, { body: budget({ minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    await f.json('PUT', `${budgets}/web/status`, { body: { ...created.body, status: { observedGeneration: 1, currentHealthy: 0, desiredHealthy: 1, expectedPods: 1, disruptionsAllowed: 0 } } });
    expect((await evict(f, 'pending')).status).toBe(201);

    const unready = await f.json<Pod>('POST', pods, { body: pod('unready', { metadata: { name: 'unready', labels: { app: 'web' } } }) });
    await f.json('PUT', `${pods}/unready/status`, { body: { ...unready.body, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] } } });
    const budgetNow = async () => (await f.json<PodDisruptionBudget>('GET', `${budgets}/web`)).body;
    const short = { observedGeneration: 1, currentHealthy: 0, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 0 };
    await f.json('PUT', `${budgets}/web/status`, { body: { ...(await budgetNow()), status: short } });
    expect((await evict(f, 'unready')).status).toBe(429); // the budget is not met: an unready pod waits too
    await f.json('PUT', `${budgets}/web/status`, { body: { ...(await budgetNow()), status: { ...short, currentHealthy: 1 } } });
    expect((await evict(f, 'unready')).status).toBe(201);
  });

  it('answers 429 while the controller has not seen the budget as it is (observedGeneration behind)', async () => {
    const f = await apiFixture();
    await readyPod(f, 'web-1');
    await f.json('POST', budgets, { body: budget({ maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }) });
    expect((await evict(f, 'web-1')).body.details?.causes).toEqual([{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }]);
  });
});
