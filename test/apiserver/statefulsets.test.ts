import { describe, expect, it } from 'vitest';
import type { StatefulSet } from '../../shared/statefulset-types.js';
import { apiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const statefulsets = '/apis/apps/v1/namespaces/default/statefulsets';
const mergePatch = 'application/merge-patch+json';

function statefulSet(name: string, extra: Record<string, unknown> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
      ...extra,
    },
  } as StatefulSet;
}

const causes = (body: unknown): [string | undefined, string | undefined][] => ((body as Status).details?.causes ?? []).map((c) => [c.field, c.message]);

describe('apps/v1 StatefulSets in the apiserver', () => {
  it('defaults as kube-apiserver does', async () => {
    const f = await apiFixture();
    const claim = { metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const res = await f.json<StatefulSet>('POST', statefulsets, { body: statefulSet('web', { volumeClaimTemplates: [claim], updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } }) });
    expect(res.status).toBe(201);
    expect(res.body.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(res.body.spec.updateStrategy?.rollingUpdate).toEqual({ partition: 0 });
    expect(res.body.spec.volumeClaimTemplates?.[0]?.spec.volumeMode).toBe('Filesystem');
    expect(res.body.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
  });

  it('rejects what ValidateStatefulSet rejects, in its words', async () => {
    const f = await apiFixture();
    const post = (body: StatefulSet) => f.json<Status>('POST', statefulsets, { body });
    const noSelector = statefulSet('a');
    delete (noSelector.spec as Partial<StatefulSet['spec']>).selector;
    const r1 = await post(noSelector);
    expect(r1.status).toBe(422);
    expect(r1.body).toMatchObject({ reason: 'Invalid', details: { kind: 'StatefulSet', group: 'apps' } });
    expect(causes(r1.body)).toEqual([['spec.selector', 'Required value']]);

    const mismatch = await post(statefulSet('b', { selector: { matchLabels: { app: 'other' } } }));
    expect(causes(mismatch.body)).toEqual([['spec.template.metadata.labels', 'Invalid value: {"app":"b"}: `selector` does not match template `labels`']]);

    const bad = statefulSet('c', {
      podManagementPolicy: 'Random',
      updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' },
      replicas: -1,
    });
    bad.spec.template.spec.restartPolicy = 'Never';
    expect(causes((await post(bad)).body)).toEqual([
      ['spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"'],
      ['spec.podManagementPolicy', 'Unsupported value: "Random": supported values: "OrderedReady", "Parallel"'],
      ['spec.updateStrategy.rollingUpdate', `Invalid value: {"partition":1}: only allowed for updateStrategy 'RollingUpdate'`],
      ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted', 'Unsupported value: "Keep": supported values: "Retain", "Delete"'],
    ]);
  });

  it('lets only replicas, ordinals, template, updateStrategy, the retention policy and minReadySeconds change', async () => {
    const f = await apiFixture();
    expect((await f.json('POST', statefulsets, { body: statefulSet('web') })).status).toBe(201);
    const patch = (spec: Record<string, unknown>) => f.json<StatefulSet>('PATCH', `${statefulsets}/web`, { body: { spec }, contentType: mergePatch });
    const ok = await patch({ replicas: 3, minReadySeconds: 5, updateStrategy: { rollingUpdate: { partition: 1 } }, persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete' } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.generation).toBe(2);
    const forbidden = "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
    for (const spec of [{ serviceName: 'other' }, { podManagementPolicy: 'Parallel' }, { volumeClaimTemplates: [] }]) {
      const r = await patch(spec);
      expect(r.status).toBe(422);
      expect(causes(r.body)).toEqual([['spec', forbidden]]);
    }
  });

  it('serves the scale subresource and the kube columns', async () => {
    const f = await apiFixture();
    await f.json('POST', statefulsets, { body: statefulSet('web', { replicas: 2 }) });
    const scale = await f.json<{ spec: { replicas: number }; status: { selector: string } }>('GET', `${statefulsets}/web/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { selector: 'app=web' } });
    const scaled = await f.json('PATCH', `${statefulsets}/web/scale`, { body: { spec: { replicas: 4 } }, contentType: mergePatch });
    expect(scaled.status).toBe(200);
    expect((await f.json<StatefulSet>('GET', `${statefulsets}/web`)).body.spec.replicas).toBe(4);
    const table = await f.json<Table>('GET', statefulsets, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => [c.name, c.priority ?? 0])).toEqual([['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
    expect(table.body.rows[0]!.cells.slice(0, 2)).toEqual(['web', '0/4']);
    expect(table.body.rows[0]!.cells.slice(3)).toEqual(['nginx', 'nginx:1.27']);
  });
});
