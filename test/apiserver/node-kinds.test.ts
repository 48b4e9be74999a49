import { describe, expect, it } from 'vitest';
import { DEFAULT_RUNTIME_CLASSES, ensureRuntimeClasses } from '../../cloud/apiserver/kinds/bootstrap.js';
import type { Lease, RuntimeClass } from '../../shared/config-types.js';
import type { Pod, Toleration } from '../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, pod } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const runtimeClasses = '/apis/node.k8s.io/v1/runtimeclasses';
const pods = '/api/v1/namespaces/default/pods';


function lease(name: string, spec: Lease['spec'] = {}): Lease {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec };
}

function runtimeClass(name: string, extra: Partial<RuntimeClass> = {}): RuntimeClass {
  return { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: name, ...extra };
}

describe('Leases (coordination.k8s.io/v1)', () => {
  it('are created, renewed and deleted in a namespace', async () => {
    const f = await apiFixture();
    const spec = { holderIdentity: 'edge-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' };
    const created = await f.json<Lease>('POST', leases, { body: lease('edge-1', spec) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace: 'kube-node-lease' }, spec });
    const renewed = await f.json<Lease>('PUT', `${leases}/edge-1`, { body: { ...created.body, spec: { ...spec, renewTime: '2026-01-01T00:00:10.000000Z' } } });
    expect(renewed.body.spec?.renewTime).toBe('2026-01-01T00:00:10.000000Z');
    expect((await f.json('GET', '/apis/coordination.k8s.io/v1/leases')).body).toMatchObject({ kind: 'LeaseList', items: [{ metadata: { name: 'edge-1' } }] });
    expect((await f.json('DELETE', `${leases}/edge-1`)).status).toBe(200);
    expect((await f.json<Status>('GET', `${leases}/edge-1`)).body.message).toBe('leases.coordination.k8s.io "edge-1" not found');
  });

  it('refuses a non-positive duration (422) and a time that does not parse (400)', async () => {
    const f = await apiFixture();
    const zero = await f.json<Status>('POST', leases, { body: lease('a', { leaseDurationSeconds: 0, leaseTransitions: -1 }) });
    expect(zero.status).toBe(422);
    expect(zero.body.message).toBe('Lease "a" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]');
    const time = await f.json<Status>('POST', leases, { body: lease('b', { renewTime: 'yesterday' }) });
    expect(time.status).toBe(400);
    expect(time.body.message).toContain('Lease in version "v1" cannot be handled as a Lease: parsing time "yesterday"');
  });

  it('prints NAME HOLDER AGE', async () => {
    const f = await apiFixture();
    await f.json('POST', leases, { body: lease('edge-1', { holderIdentity: 'edge-1' }) });
    await f.json('POST', leases, { body: lease('free') });
    await f.clock.advance(30_000);
    const table = await f.json<Table>('GET', leases, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['edge-1', 'edge-1', '30s'], ['free', '', '30s']]);
  });
});

describe('RuntimeClasses (node.k8s.io/v1)', () => {
  it('sim, process and kedge-agent exist from the start; ensureRuntimeClasses is idempotent', async () => {
    const f = await apiFixture();
    await ensureRuntimeClasses(f.api.loopback(ADMIN_TOKEN));
    const list = await f.json<{ kind: string; items: RuntimeClass[] }>('GET', runtimeClasses);
    expect(list.body.kind).toBe('RuntimeClassList');
    expect(list.body.items.map((rc) => [rc.metadata.name, rc.handler])).toEqual([['kedge-agent', 'kedge-agent'], ['process', 'process'], ['sim', 'sim']]);
    expect([...DEFAULT_RUNTIME_CLASSES]).toEqual(['sim', 'process', 'kedge-agent']);
    await f.clock.advance(120_000);
    const table = await f.json<Table>('GET', runtimeClasses, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Handler', 'Age']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['kedge-agent', 'kedge-agent', '2m'], ['process', 'process', '2m'], ['sim', 'sim', '2m']]);
  });

  it('are cluster-scoped, need a DNS-label handler and keep it', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', '/apis/node.k8s.io/v1/namespaces/default/runtimeclasses', { body: runtimeClass('x') })).status).toBe(404);
    const missing = await f.json<Status>('POST', runtimeClasses, { body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'none' } } });
    expect(missing.status).toBe(422);
    expect(missing.body.details?.causes?.map((c) => c.field)).toEqual(['handler']);
    const upper = await f.json<Status>('POST', runtimeClasses, { body: runtimeClass('gpu', { handler: 'Nvidia' }) });
    expect(upper.status).toBe(422);
    expect(upper.body.message).toContain('RuntimeClass "gpu" is invalid: handler: Invalid value: "Nvidia": a lowercase RFC 1123 label');
    const created = await f.json<RuntimeClass>('POST', runtimeClasses, { body: runtimeClass('gpu', { handler: 'nvidia' }) });
    expect(created.status).toBe(201);
    expect(created.body.metadata).not.toHaveProperty('namespace');
    const change = await f.json<Status>('PUT', `${runtimeClasses}/gpu`, { body: { ...created.body, handler: 'runc' } });
    expect(change.status).toBe(422);
    expect(change.body.message).toBe('RuntimeClass "gpu" is invalid: handler: Invalid value: "runc": field is immutable');
  });
});

describe('RuntimeClass admission of pods', () => {
  it('refuses a pod naming a RuntimeClass that does not exist with 403, as kube does', async () => {
    const f = await apiFixture();
    const res = await f.json<Status>('POST', pods, { body: pod('gpu-job', { spec: { runtimeClassName: 'gpu', containers: [{ name: 'app', image: 'x:1' }] } }) });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ reason: 'Forbidden', message: 'pods "gpu-job" is forbidden: pod rejected: RuntimeClass "gpu" not found', details: { name: 'gpu-job', kind: 'pods' } });
    expect((await f.json('GET', `${pods}/gpu-job`)).status).toBe(404);
  });

  it('admits pods naming an existing class, and pods naming none', async () => {
    const f = await apiFixture();
    const sim = await f.json<Pod>('POST', pods, { body: pod('on-sim', { spec: { runtimeClassName: 'sim', containers: [{ name: 'app', image: 'x:1' }] } }) });
    expect(sim.status).toBe(201);
    expect(sim.body.spec.runtimeClassName).toBe('sim');
    expect((await f.json('POST', pods, { body: pod('plain') })).status).toBe(201);
    await f.json('POST', runtimeClasses, { body: runtimeClass('gpu', { handler: 'nvidia' }) });
    expect((await f.json('POST', pods, { body: pod('later', { spec: { runtimeClassName: 'gpu', containers: [{ name: 'app', image: 'x:1' }] } }) })).status).toBe(201);
  });

  it("copies the class's scheduling and overhead into the pod; a conflicting nodeSelector is refused", async () => {
    const f = await apiFixture();
    const toleration: Toleration = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };
    await f.json('POST', runtimeClasses, {
      body: runtimeClass('gpu', { handler: 'nvidia', overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { accel: 'gpu' }, tolerations: [toleration] } }),
    });
    const spec = { runtimeClassName: 'gpu', nodeSelector: { zone: 'a' }, containers: [{ name: 'app', image: 'x:1' }] };
    const admitted = await f.json<Pod>('POST', pods, { body: pod('train', { spec }) });
    expect(admitted.status).toBe(201);
    expect(admitted.body.spec.nodeSelector).toEqual({ zone: 'a', accel: 'gpu' });
    expect(admitted.body.spec.tolerations).toContainEqual(toleration);
    expect(admitted.body.spec.overhead).toEqual({ cpu: '250m' });
    const clash = await f.json<Status>('POST', pods, { body: pod('clash', { spec: { ...spec, nodeSelector: { accel: 'tpu' } } }) });
    expect(clash.status).toBe(403);
    expect(clash.body.message).toBe('pods "clash" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[accel] = gpu; pod.spec.nodeSelector[accel] = tpu');
    const overhead = await f.json<Status>('POST', pods, { body: pod('sneaky', { spec: { overhead: { cpu: '1' }, containers: [{ name: 'app', image: 'x:1' }] } }) });
    expect(overhead.status).toBe(403);
    expect(overhead.body.message).toBe('pods "sneaky" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  });
});
