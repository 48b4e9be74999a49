import { describe, expect, it } from 'vitest';
import type { ControllerRevision, DaemonSet } from '../../shared/daemonset-types.js';
import { apiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const daemonsets = '/apis/apps/v1/namespaces/default/daemonsets';
const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions';
const mergePatch = 'application/merge-patch+json';

function daemonSet(name: string, extra: Record<string, unknown> = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'agent', image: 'kedge.io/agent:1' }] } },
      ...extra,
    },
  } as DaemonSet;
}

const causesOf = (body: unknown): (string | undefined)[] => ((body as Status).details?.causes ?? []).map((c) => c.field);
const messagesOf = (body: unknown): string[] => ((body as Status).details?.causes ?? []).map((c) => c.message ?? '');

describe('apps/v1 DaemonSets and ControllerRevisions in the apiserver', () => {
  it('lists both in discovery: ds with a status subresource, in the all category', async () => {
    const f = await apiFixture();
    const list = await f.json<{ resources: Record<string, unknown>[] }>('GET', '/apis/apps/v1');
    const byName = new Map(list.body.resources.map((r) => [r.name, r]));
    expect(byName.get('daemonsets')).toMatchObject({ kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'] });
    expect(byName.get('daemonsets/status')).toMatchObject({ kind: 'DaemonSet' });
    expect(byName.get('controllerrevisions')).toMatchObject({ kind: 'ControllerRevision', namespaced: true });
    expect(byName.get('controllerrevisions')?.shortNames ?? []).toEqual([]);
  });

  it("defaults as kube-apiserver does, with templateGeneration 1 that grows with each template change", async () => {
    const f = await apiFixture();
    const res = await f.json<DaemonSet>('POST', daemonsets, { body: daemonSet('agent') });
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
    expect(res.body.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
    const generationOf = (ds: DaemonSet): string | undefined => ds.metadata.annotations?.['deprecated.daemonset.template.generation'];
    expect(generationOf(res.body)).toBe('1');

    const relabeled = await f.json<DaemonSet>('PATCH', `${daemonsets}/agent`, { body: { metadata: { labels: { team: 'a' } } }, contentType: mergePatch });
    expect(generationOf(relabeled.body)).toBe('1');
    const image = { spec: { template: { spec: { containers: [{ name: 'agent', image: 'kedge.io/agent:2' }] } } } };
    const updated = await f.json<DaemonSet>('PATCH', `${daemonsets}/agent`, { body: image, contentType: 'application/strategic-merge-patch+json' });
    expect(updated.status).toBe(200);
    expect(generationOf(updated.body)).toBe('2');
    expect(updated.body.metadata.generation).toBe(2);
    const onDelete = await f.json<DaemonSet>('PATCH', `${daemonsets}/agent`, { body: { spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null } } }, contentType: mergePatch });
    expect(onDelete.body.spec.updateStrategy).toEqual({ type: 'OnDelete' });
    expect(generationOf(onDelete.body)).toBe('2');
    const back = await f.json<DaemonSet>('PATCH', `${daemonsets}/agent`, { body: { spec: { updateStrategy: { type: 'RollingUpdate' } } }, contentType: mergePatch });
    expect(back.body.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  });

  it('rejects what ValidateDaemonSet rejects, in its words', async () => {
    const f = await apiFixture();
    const post = (body: DaemonSet) => f.json<Status>('POST', daemonsets, { body });
    const noSelector = daemonSet('a');
    delete (noSelector.spec as Partial<DaemonSet['spec']>).selector;
    const r1 = await post(noSelector);
    expect(r1.status).toBe(422);
    expect(r1.body).toMatchObject({ reason: 'Invalid', details: { kind: 'DaemonSet', group: 'apps' } });
    expect(causesOf(r1.body)).toEqual(['spec.selector']);

    const r2 = await post(daemonSet('b', { selector: { matchLabels: { app: 'other' } } }));
    expect(causesOf(r2.body)).toEqual(['spec.template.metadata.labels']);
    expect(r2.body.message).toContain('`selector` does not match template `labels`');

    const r3 = await post(daemonSet('c', { selector: {} }));
    expect(r3.body.message).toContain('empty selector is invalid for daemonset');

    const never = daemonSet('d');
    never.spec.template.spec.restartPolicy = 'Never';
    expect(messagesOf((await post(never)).body)).toEqual(['Unsupported value: "Never": supported values: "Always"']);

    const r5 = await post(daemonSet('e', { updateStrategy: { type: 'Recreate' } }));
    expect(causesOf(r5.body)).toEqual(['spec.updateStrategy']);
    expect(r5.body.message).toContain('supported values: "RollingUpdate", "OnDelete"');

    const both = await post(daemonSet('f', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } }));
    expect(both.body.message).toBe('DaemonSet "f" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero');
    const neither = await post(daemonSet('g', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } } }));
    expect(neither.body.message).toBe('DaemonSet "g" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0');
    const tooMuch = await post(daemonSet('h', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '101%' } } }));
    expect(causesOf(tooMuch.body)).toEqual(['spec.updateStrategy.rollingUpdate.maxUnavailable']);
    expect(tooMuch.body.message).toContain('must not be greater than 100%');
    const negative = await post(daemonSet('i', { minReadySeconds: -1, revisionHistoryLimit: -2 }));
    expect(causesOf(negative.body).sort()).toEqual(['spec.minReadySeconds', 'spec.revisionHistoryLimit']);

    expect((await post(daemonSet('ok', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '10%' } } }))).status).toBe(201);
    const moved = await f.json<Status>('PATCH', `${daemonsets}/ok`, {
      body: { spec: { selector: { matchLabels: { app: 'ok', x: 'y' } }, template: { metadata: { labels: { app: 'ok', x: 'y' } } } } },
      contentType: mergePatch,
    });
    expect(moved.status).toBe(422);
    expect(moved.body.message).toContain('spec.selector: Invalid value');
    expect(moved.body.message).toContain('field is immutable');
  });

  it('prints DaemonSets and ControllerRevisions as kubectl get shows them', async () => {
    const f = await apiFixture();
    const body = daemonSet('agent');
    body.spec.template.spec.nodeSelector = { zone: 'edge', arch: 'arm64' };
    const created = (await f.json<DaemonSet>('POST', daemonsets, { body })).body;
    const status = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2, numberMisscheduled: 0 };
    await f.json('PUT', `${daemonsets}/agent/status`, { body: { ...created, status } });
    await f.clock.advance(90_000);
    const t = await f.json<Table>('GET', daemonsets, { accept: tableAccept });
    expect(t.body.columnDefinitions.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age']);
    expect(t.body.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Containers', 'Images', 'Selector']);
    expect(t.body.rows[0]!.cells).toEqual(['agent', 3, 3, 2, 1, 2, 'arch=arm64,zone=edge', '90s', 'agent', 'kedge.io/agent:1', 'app=agent']);

    const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: created.metadata.uid!, controller: true };
    const cr: ControllerRevision = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'agent-abc', ownerReferences: [owner] }, data: { spec: {} }, revision: 3 };
    expect((await f.json('POST', revisions, { body: cr })).status).toBe(201);
    const rt = await f.json<Table>('GET', revisions, { accept: tableAccept });
    expect(rt.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Controller', 'Revision', 'Age']);
    expect(rt.body.rows[0]!.cells).toEqual(['agent-abc', 'daemonset.apps/agent', 3, '0s']);
  });

  it('keeps a ControllerRevision data immutable and requires it', async () => {
    const f = await apiFixture();
    const missing = await f.json<Status>('POST', revisions, { body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 1 } });
    expect(missing.body.message).toBe('ControllerRevision "r" is invalid: data: Required value: data is mandatory');
    await f.json('POST', revisions, { body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: { a: 1 }, revision: 1 } });
    const renumbered = await f.json<ControllerRevision>('PATCH', `${revisions}/r`, { body: { revision: 2 }, contentType: mergePatch });
    expect(renumbered.body.revision).toBe(2);
    const changed = await f.json<Status>('PATCH', `${revisions}/r`, { body: { data: { a: 2 } }, contentType: mergePatch });
    expect(changed.status).toBe(422);
    expect(changed.body.message).toContain('field is immutable');
  });
});

describe('odd DaemonSet and ControllerRevision bodies', () => {
  const odd: unknown[] = [null, 0, -1, 1.5, true, '', 'x', '50%', '200%', [], {}, [1, 'a', null], { type: 'OnDelete' }];
  const paths = [
    ['spec'], ['spec', 'updateStrategy'], ['spec', 'updateStrategy', 'type'], ['spec', 'updateStrategy', 'rollingUpdate'],
    ['spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable'], ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge'],
    ['spec', 'template'], ['spec', 'template', 'spec'], ['spec', 'template', 'metadata'], ['spec', 'template', 'spec', 'tolerations'],
    ['spec', 'template', 'spec', 'nodeSelector'], ['spec', 'template', 'spec', 'affinity'], ['spec', 'template', 'spec', 'containers'], ['spec', 'selector'], ['spec', 'revisionHistoryLimit'],
    ['spec', 'minReadySeconds'], ['metadata', 'annotations'],
  ];
  const withValue = (body: unknown, path: string[], value: unknown): unknown => {
    const copy = structuredClone(body) as Record<string, unknown>;
    let at = copy;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[path[path.length - 1]!] = value;
    return copy;
  };

  it('are answered below 500, on create and on update', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', daemonsets, { body: daemonSet('base') })).status).toBe(201);
    const base = daemonSet('x');
    for (const path of paths) {
      for (const value of odd) {
        const created = await f.json('POST', daemonsets, { body: withValue(base, path, value) });
        expect(created.status, `POST ${path.join('.')}=${JSON.stringify(value)}`).toBeLessThan(500);
        if (created.status === 201) await f.json('DELETE', `${daemonsets}/x`);
        const patched = await f.json('PATCH', `${daemonsets}/base`, { body: withValue({}, path, value), contentType: mergePatch });
        expect(patched.status, `PATCH ${path.join('.')}=${JSON.stringify(value)}`).toBeLessThan(500);
      }
    }
    for (const value of odd) {
      const cr = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: value, revision: value };
      const res = await f.json('POST', revisions, { body: cr });
      expect(res.status, `ControllerRevision ${JSON.stringify(value)}`).toBeLessThan(500);
      if (res.status === 201) await f.json('DELETE', `${revisions}/r`);
    }
  });
});
