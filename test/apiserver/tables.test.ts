import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { humanDuration } from '../../cloud/client/human-duration.js';
import { podStatusReason } from '../../cloud/apiserver/kinds/printers.js';
import { apiFixture, node, pod, takeEvents } from '../support/api-fixture.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: { name: string; priority?: number }[] | null;
  rows: { cells: unknown[]; object?: { kind: string; apiVersion: string; metadata: { name: string } } }[];
}

describe('Tables', () => {
  it('prints pods with the real columns, wide ones at priority 1', async () => {
    const f = await apiFixture();
    await f.json('POST', '/api/v1/namespaces/default/pods', { body: pod('web') });
    await f.clock.advance(5 * 60_000);
    const res = await f.json<Table>('GET', '/api/v1/namespaces/default/pods', { accept: tableAccept });
    expect(res.body.kind).toBe('Table');
    expect(res.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(res.body.metadata.resourceVersion).toBe(String(f.store.revision));
    const cols = res.body.columnDefinitions!;
    expect(cols.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(cols.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(res.body.rows[0]!.cells).toEqual(['web', '0/1', 'Pending', '0', '5m', '<none>', '<none>', '<none>', '<none>']);
    expect(res.body.rows[0]!.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'web', namespace: 'default' } });
    const full = await f.json<Table>('GET', '/api/v1/namespaces/default/pods/web', { accept: tableAccept, query: { includeObject: 'Object' } });
    expect(full.body.rows).toHaveLength(1);
    expect(full.body.rows[0]!.object).toMatchObject({ kind: 'Pod', spec: { containers: [{ name: 'app' }] } });
  });

  it('prints nodes: Ready/NotReady/Unknown, SchedulingDisabled, roles and wide columns', async () => {
    const f = await apiFixture();
    await f.json('POST', '/api/v1/nodes', { body: node('a', 'True') });
    await f.json('POST', '/api/v1/nodes', { body: node('b', 'Unknown') });
    await f.json('POST', '/api/v1/nodes', { body: node('c', 'none') });
    await f.json('PATCH', '/api/v1/nodes/a', { body: { spec: { unschedulable: true } }, contentType: 'application/strategic-merge-patch+json' });
    const res = await f.json<Table>('GET', '/api/v1/nodes', { accept: tableAccept });
    const cols = res.body.columnDefinitions!;
    expect(cols.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
    expect(cols.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']);
    expect(res.body.rows.map((r) => r.cells[1])).toEqual(['Ready,SchedulingDisabled', 'NotReady', 'Unknown']);
    expect(res.body.rows[0]!.cells).toEqual(['a', 'Ready,SchedulingDisabled', 'edge', '0s', 'v1.32.4-kedge', '10.0.0.7', '<none>', 'Kedge Sim', '6.1.0', 'sim://1.0']);
  });

  it('prints namespaces', async () => {
    const f = await apiFixture();
    const res = await f.json<Table>('GET', '/api/v1/namespaces/default', { accept: tableAccept });
    expect(res.body.columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(res.body.rows[0]!.cells).toEqual(['default', 'Active', '0s']);
  });

  it('derives the pod Status column like kubectl', () => {
    const base = pod('p');
    const withState = (state: object, extra: Partial<Pod['status']> = {}): Pod => ({
      ...base,
      status: { phase: 'Pending', ...extra, containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: '', imageID: '', state, lastState: {} }] },
    });
    expect(podStatusReason(withState({ waiting: { reason: 'ContainerCreating' } }))).toBe('ContainerCreating');
    expect(podStatusReason(withState({ waiting: { reason: 'CrashLoopBackOff' } }, { phase: 'Running' }))).toBe('CrashLoopBackOff');
    expect(podStatusReason(withState({ terminated: { exitCode: 0, reason: 'Completed' } }, { phase: 'Succeeded' }))).toBe('Completed');
    expect(podStatusReason(withState({ terminated: { exitCode: 3 } }))).toBe('ExitCode:3');
    expect(podStatusReason({ ...withState({ running: {} }, { phase: 'Running' }), metadata: { name: 'p', deletionTimestamp: 'x' } })).toBe('Terminating');
  });

  it('formats ages like kubectl', () => {
    expect([5_000, 119_000, 150_000, 600_000, 3 * 3600_000 + 60_000, 30 * 3600_000, 3 * 86400_000 + 3600_000, 400 * 86400_000].map(humanDuration)).toEqual([
      '5s', '119s', '2m30s', '10m', '3h1m', '30h', '3d1h', '400d',
    ]);
  });

  it('sends Tables in watch events, with column definitions only in the first', async () => {
    const f = await apiFixture();
    await f.json('POST', '/api/v1/namespaces/default/pods', { body: pod('a') });
    await f.json('POST', '/api/v1/namespaces/default/pods', { body: pod('b') });
    const events = await takeEvents(await f.send('GET', '/api/v1/namespaces/default/pods', { accept: tableAccept, query: { watch: 'true' } }), 2);
    const tables = events.map((e) => e.object as Table);
    expect(tables[0]!.kind).toBe('Table');
    expect(tables[0]!.columnDefinitions).toHaveLength(9);
    expect(tables[1]!.columnDefinitions).toBeNull();
    expect(tables[1]!.rows[0]!.cells[0]).toBe('b');
  });
});
