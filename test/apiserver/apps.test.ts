import { describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet, Scale } from '../../shared/apps-types.js';
import { apiFixture, type ApiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const deploys = '/apis/apps/v1/namespaces/default/deployments';
const replicasets = '/apis/apps/v1/namespaces/default/replicasets';


function deployment(name: string, extra: Record<string, unknown> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] } },
      ...extra,
    },
  } as Deployment;
}

function replicaSet(name: string): ReplicaSet {
  const d = deployment(name);
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name }, spec: { replicas: 2, selector: d.spec.selector, template: d.spec.template } };
}

const causesOf = (body: unknown): (string | undefined)[] => ((body as Status).details?.causes ?? []).map((c) => c.field);

describe('apps/v1 in the apiserver', () => {
  it('serves the apps group in discovery, with scale as autoscaling/v1 Scale', async () => {
    const f = await apiFixture();
    const groups = await f.json<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>('GET', '/apis');
    expect(groups.body.groups.find((g) => g.name === 'apps')).toMatchObject({ preferredVersion: { groupVersion: 'apps/v1' } });
    const list = await f.json<{ groupVersion: string; resources: Record<string, unknown>[] }>('GET', '/apis/apps/v1');
    expect(list.status).toBe(200);
    expect(list.body.groupVersion).toBe('apps/v1');
    const byName = new Map(list.body.resources.map((r) => [r.name, r]));
    expect([...byName.keys()]).toEqual([
      'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale', 'daemonsets', 'daemonsets/status', 'controllerrevisions',
      'statefulsets', 'statefulsets/status', 'statefulsets/scale',
    ]);
    expect(byName.get('deployments')).toMatchObject({ kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'] });
    expect(byName.get('replicasets')).toMatchObject({ kind: 'ReplicaSet', shortNames: ['rs'], categories: ['all'] });
    expect(byName.get('statefulsets')).toMatchObject({ kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'] });
    for (const scale of ['deployments/scale', 'replicasets/scale', 'statefulsets/scale']) {
      expect(byName.get(scale)).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    }
  });

  it('defaults a Deployment as kube-apiserver does', async () => {
    const f = await apiFixture();
    const bare = deployment('web');
    delete bare.spec.replicas;
    const res = await f.json<Deployment>('POST', deploys, { body: bare });
    expect(res.status).toBe(201);
    const spec = res.body.spec;
    expect(spec).toMatchObject({
      replicas: 1,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    });
    expect(spec.template.spec).toMatchObject({ restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
    expect(spec.template.spec.containers[0]).toMatchObject({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log' });
    expect(res.body.metadata.generation).toBe(1);

    const recreate = await f.json<Deployment>('POST', deploys, { body: deployment('batch', { strategy: { type: 'Recreate' } }) });
    expect(recreate.body.spec.strategy).toEqual({ type: 'Recreate' });
    const rs = await f.json<ReplicaSet>('POST', replicasets, { body: { ...replicaSet('solo'), spec: { ...replicaSet('solo').spec, replicas: undefined } } });
    expect(rs.body.spec.replicas).toBe(1);
  });

  it('rejects workloads whose selector is missing, empty or does not match the template, with field causes', async () => {
    const f = await apiFixture();
    const noSelector = deployment('a');
    delete (noSelector.spec as Partial<Deployment['spec']>).selector;
    const r1 = await f.json<Status>('POST', deploys, { body: noSelector });
    expect(r1.status).toBe(422);
    expect(r1.body).toMatchObject({ reason: 'Invalid', details: { kind: 'Deployment', group: 'apps' } });
    expect(causesOf(r1.body)).toEqual(['spec.selector']);

    const r2 = await f.json<Status>('POST', deploys, { body: deployment('b', { selector: { matchLabels: { app: 'other' } } }) });
    expect(r2.status).toBe(422);
    expect(causesOf(r2.body)).toEqual(['spec.template.metadata.labels']);
    expect(r2.body.message).toContain('`selector` does not match template `labels`');

    const r3 = await f.json<Status>('POST', deploys, { body: deployment('c', { selector: {} }) });
    expect(causesOf(r3.body)).toContain('spec.selector');

    const badRs = replicaSet('d');
    badRs.spec.template.spec.restartPolicy = 'Never';
    badRs.spec.replicas = -1;
    const r4 = await f.json<Status>('POST', replicasets, { body: badRs });
    expect(r4.status).toBe(422);
    expect(causesOf(r4.body).sort()).toEqual(['spec.replicas', 'spec.template.spec.restartPolicy']);

    const r5 = await f.json<Status>('POST', deploys, { body: deployment('e', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } }) });
    expect(causesOf(r5.body)).toEqual(['spec.strategy.rollingUpdate.maxUnavailable']);

    const noImage = deployment('f');
    delete noImage.spec.template.spec.containers[0]!.image;
    expect(causesOf((await f.json<Status>('POST', deploys, { body: noImage })).body)).toEqual(['spec.template.spec.containers[0].image']);
  });

  it('keeps the selector immutable and bumps generation on spec changes only', async () => {
    const f = await apiFixture();
    const created = (await f.json<Deployment>('POST', deploys, { body: deployment('web') })).body;
    const moved = structuredClone(created);
    moved.spec.selector = { matchLabels: { app: 'web', tier: 'x' } };
    moved.spec.template.metadata!.labels = { app: 'web', tier: 'x' };
    const r = await f.json<Status>('PUT', `${deploys}/web`, { body: moved });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('field is immutable');

    const status = await f.json<Deployment>('PUT', `${deploys}/web/status`, { body: { ...created, status: { replicas: 3, observedGeneration: 1 } } });
    expect(status.body.metadata.generation).toBe(1);
    const relabeled = await f.json<Deployment>('PATCH', `${deploys}/web`, { body: { metadata: { labels: { team: 'a' } } }, contentType: 'application/merge-patch+json' });
    expect(relabeled.body.metadata.generation).toBe(1);
    expect(relabeled.body.status).toEqual({ replicas: 3, observedGeneration: 1 });
  });

  it('prints Deployments and ReplicaSets as kubectl get shows them', async () => {
    const f = await apiFixture();
    const created = (await f.json<Deployment>('POST', deploys, { body: deployment('web') })).body;
    await f.json('PUT', `${deploys}/web/status`, { body: { ...created, status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 } } });
    await f.clock.advance(90_000);
    const t = await f.json<Table>('GET', deploys, { accept: tableAccept });
    expect(t.body.columnDefinitions.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Ready', 'Up-to-date', 'Available', 'Age']);
    expect(t.body.columnDefinitions.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Containers', 'Images', 'Selector']);
    expect(t.body.rows[0]!.cells).toEqual(['web', '2/3', 3, 2, '90s', 'app', 'kedge.io/hello:1.0', 'app=web']);

    const rs = replicaSet('web-abc');
    rs.spec.selector = { matchLabels: { app: 'web-abc' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] };
    rs.spec.template.metadata!.labels = { app: 'web-abc', tier: 'a' };
    const createdRs = (await f.json<ReplicaSet>('POST', replicasets, { body: rs })).body;
    await f.json('PUT', `${replicasets}/web-abc/status`, { body: { ...createdRs, status: { replicas: 2, readyReplicas: 1 } } });
    const rt = await f.json<Table>('GET', replicasets, { accept: tableAccept });
    expect(rt.body.columnDefinitions.filter((c) => !c.priority).map((c) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Age']);
    expect(rt.body.rows[0]!.cells).toEqual(['web-abc', 2, 2, 1, '0s', 'app', 'kedge.io/hello:1.0', 'app=web-abc,tier in (a,b)']);

    const selected = await f.json<{ items: ReplicaSet[] }>('GET', replicasets, { query: { fieldSelector: 'status.replicas=2' } });
    expect(selected.body.items.map((i) => i.metadata.name)).toEqual(['web-abc']);
    const none = await f.json<{ items: ReplicaSet[] }>('GET', replicasets, { query: { fieldSelector: 'status.replicas=0' } });
    expect(none.body.items).toEqual([]);
  });
});

describe('the scale subresource', () => {
  const scaleOf = (f: ApiFixture, path: string) => f.json<Scale>('GET', `${path}/scale`);

  it('reads and writes spec.replicas through autoscaling/v1 Scale, bumping generation', async () => {
    const f = await apiFixture();
    const created = (await f.json<Deployment>('POST', deploys, { body: deployment('web') })).body;
    await f.json('PUT', `${deploys}/web/status`, { body: { ...created, status: { replicas: 3 } } });
    const read = await scaleOf(f, `${deploys}/web`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default', uid: created.metadata.uid }, spec: { replicas: 3 }, status: { replicas: 3, selector: 'app=web' } });

    const patched = await f.json<Scale>('PATCH', `${deploys}/web/scale`, { body: { spec: { replicas: 5 } }, contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 5 } });
    const after = (await f.json<Deployment>('GET', `${deploys}/web`)).body;
    expect(after.spec.replicas).toBe(5);
    expect(after.metadata.generation).toBe(2);
    expect(patched.body.metadata.resourceVersion).toBe(after.metadata.resourceVersion);

    const put = await f.json<Scale>('PUT', `${deploys}/web/scale`, { body: { ...patched.body, spec: { replicas: 1 } } });
    expect(put.body.spec.replicas).toBe(1);
    const stale = await f.json<Status>('PUT', `${deploys}/web/scale`, { body: { ...patched.body, spec: { replicas: 2 } } });
    expect(stale.status).toBe(409);
    const negative = await f.json<Status>('PATCH', `${deploys}/web/scale`, { body: { spec: { replicas: -1 } }, contentType: 'application/merge-patch+json' });
    expect(negative.status).toBe(422);
    expect(negative.body).toMatchObject({ details: { kind: 'Scale', group: 'autoscaling' } });
    expect(causesOf(negative.body)).toEqual(['spec.replicas']);
    expect((await f.json<Deployment>('GET', `${deploys}/web`)).body.spec.replicas).toBe(1);
  });

  it('scales ReplicaSets too, and answers 404 for a missing parent', async () => {
    const f = await apiFixture();
    await f.json('POST', replicasets, { body: replicaSet('solo') });
    const res = await f.json<Scale>('PATCH', `${replicasets}/solo/scale`, { body: [{ op: 'replace', path: '/spec/replicas', value: 4 }], contentType: 'application/json-patch+json' });
    expect(res.body.spec.replicas).toBe(4);
    expect((await f.json<ReplicaSet>('GET', `${replicasets}/solo`)).body.spec.replicas).toBe(4);
    expect((await scaleOf(f, `${replicasets}/missing`)).status).toBe(404);
    expect((await f.json('GET', '/api/v1/namespaces/default/pods/x/scale')).status).toBe(404);
  });
});
