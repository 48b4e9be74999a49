import { beforeEach, describe, expect, it } from 'vitest';
import { ensureBootstrapPolicy } from '../../cloud/apiserver/auth/rbac/stored-rules.js';
import type { KubeObject } from '../../shared/types.js';
import { ADMIN_TOKEN, VIEWER_TOKEN, apiFixture, pod, type ApiFixture } from '../support/api-fixture.js';

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const role = (name: string, rules: unknown[], extra: Record<string, unknown> = {}) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, ...extra }, rules });
const bindingTo = (kind: 'Role' | 'ClusterRole', roleName: string, user = 'viewer', name = `${user}-${roleName}`) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName }, subjects: [{ kind: 'User', name: user }],
});

describe('RBAC: bindings grant what their roles hold, where they hold it', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
    await ensureBootstrapPolicy(f.api.loopback(ADMIN_TOKEN), f.api.registry.defs);
    expect((await f.json('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status).toBe(201);
  });
  const asViewer = (method: string, path: string, body?: unknown) => f.json(method, path, { token: VIEWER_TOKEN, body });

  it('a RoleBinding to edit lets the viewer create pods in its namespace only', async () => {
    expect((await asViewer('POST', '/api/v1/namespaces/team/pods', pod('p'))).status).toBe(403);
    expect((await f.json('POST', `${rbac}/namespaces/team/rolebindings`, { body: bindingTo('ClusterRole', 'edit') })).status).toBe(201);
    expect((await asViewer('POST', '/api/v1/namespaces/team/pods', pod('p'))).status).toBe(201);
    const elsewhere = await asViewer('POST', '/api/v1/namespaces/default/pods', pod('p'));
    expect([elsewhere.status, elsewhere.body.message]).toEqual([403, 'pods is forbidden: User "viewer" cannot create resource "pods" in API group "" in the namespace "default"']);
  });

  it('a Role naming one ConfigMap lets the viewer update that one only', async () => {
    for (const name of ['a', 'b']) await f.json('POST', '/api/v1/namespaces/team/configmaps', { body: { metadata: { name }, data: { k: 'v' } } });
    await f.json('POST', `${rbac}/namespaces/team/roles`, { body: role('cm-a', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['patch'] }]) });
    await f.json('POST', `${rbac}/namespaces/team/rolebindings`, { body: bindingTo('Role', 'cm-a') });
    const patch = (name: string) => f.json('PATCH', `/api/v1/namespaces/team/configmaps/${name}`, { token: VIEWER_TOKEN, rawBody: '{"data":{"k":"w"}}', contentType: 'application/merge-patch+json' });
    expect((await patch('a')).status).toBe(200);
    expect((await patch('b')).status).toBe(403);
  });

  it('a ClusterRole labelled aggregate-to-view extends view, and so every viewer', async () => {
    const can = async () => (await asViewer('GET', '/apis/example.com/v1/widgets')).status;
    const review = async () => (await asViewer('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      spec: { resourceAttributes: { verb: 'list', group: 'example.com', resource: 'widgets', namespace: 'team' } },
    })).body as { status: { allowed: boolean } };
    expect(await can()).toBe(404);
    expect((await review()).status.allowed).toBe(false);
    const widgets = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'widget-reader', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['list'] }] };
    expect((await f.json('POST', `${rbac}/clusterroles`, { body: widgets })).status).toBe(201);
    expect((await review()).status.allowed).toBe(true);
  });

  it('binding names must be path segments; roleRef cannot change; rules need verbs', async () => {
    expect((await f.json('POST', `${rbac}/clusterroles`, { body: { metadata: { name: 'system:x' }, rules: [] } })).status).toBe(201);
    const bad = await f.json('POST', `${rbac}/namespaces/team/roles`, { body: role('r', [{ apiGroups: [''], resources: ['pods'], verbs: [] }]) });
    expect([bad.status, bad.body.message]).toEqual([422, 'Role "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value']);
    await f.json('POST', `${rbac}/namespaces/team/rolebindings`, { body: bindingTo('ClusterRole', 'view', 'alice', 'b') });
    const changed = await f.json('PATCH', `${rbac}/namespaces/team/rolebindings/b`, { rawBody: '{"roleRef":{"name":"edit"}}', contentType: 'application/merge-patch+json' });
    expect(changed.status).toBe(422);
    expect(JSON.stringify(changed.body)).toContain('roleRef: Invalid value');
    expect(JSON.stringify(changed.body)).toContain('cannot change roleRef');
  });
});

describe('RBAC: escalation prevention', () => {
  let f: ApiFixture;
  beforeEach(async () => {
    f = await apiFixture();
    await ensureBootstrapPolicy(f.api.loopback(ADMIN_TOKEN), f.api.registry.defs);
    await f.json('POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } });
    // The viewer administers "team": it may write Roles and RoleBindings there.
    await f.json('POST', `${rbac}/namespaces/team/rolebindings`, { body: bindingTo('ClusterRole', 'admin') });
  });
  const asViewer = (path: string, body: unknown) => f.json('POST', path, { token: VIEWER_TOKEN, body });

  it('a Role may hold only what its writer holds', async () => {
    expect((await asViewer(`${rbac}/namespaces/team/roles`, role('ok', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]))).status).toBe(201);
    const res = await asViewer(`${rbac}/namespaces/team/roles`, role('r', [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['delete'] }, { apiGroups: ['*'], resources: ['*'], verbs: ['escalate'] }]));
    expect([res.status, res.body.reason, res.body.message]).toEqual([
      403, 'Forbidden',
      'roles.rbac.authorization.k8s.io "r" is forbidden: user "viewer" (groups=["kedge:viewers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["nodes"], Verbs:["delete"]}\n{APIGroups:["*"], Resources:["*"], Verbs:["escalate"]}',
    ]);
  });

  it('a binding may grant only a role its writer holds, or one it may bind', async () => {
    expect((await asViewer(`${rbac}/namespaces/team/rolebindings`, bindingTo('ClusterRole', 'edit', 'bob'))).status).toBe(201);
    const admin = await asViewer(`${rbac}/namespaces/team/rolebindings`, bindingTo('ClusterRole', 'cluster-admin', 'bob'));
    expect([admin.status, admin.body.message]).toEqual([403, expect.stringContaining('rolebindings.rbac.authorization.k8s.io "bob-cluster-admin" is forbidden: user "viewer" (groups=["kedge:viewers" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}')]);
    const missing = await asViewer(`${rbac}/namespaces/team/rolebindings`, bindingTo('ClusterRole', 'nope', 'bob'));
    expect([missing.status, missing.body.message]).toEqual([403, 'rolebindings.rbac.authorization.k8s.io "bob-nope" is forbidden: clusterrole.rbac.authorization.k8s.io "nope" not found']);
    const bind = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'bind-cluster-admin' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['cluster-admin'], verbs: ['bind'] }] };
    await f.json('POST', `${rbac}/clusterroles`, { body: bind });
    await f.json('POST', `${rbac}/namespaces/team/rolebindings`, { body: bindingTo('ClusterRole', 'bind-cluster-admin') });
    expect((await asViewer(`${rbac}/namespaces/team/rolebindings`, bindingTo('ClusterRole', 'cluster-admin', 'bob'))).status).toBe(201);
  });

  it('system:masters writes any role; an aggregationRule needs cluster-admin', async () => {
    expect((await f.json('POST', `${rbac}/namespaces/team/roles`, { body: role('all', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]) })).status).toBe(201);
    const aggregating = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } };
    const writer = { metadata: { name: 'role-writer' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] }] };
    await f.json('POST', `${rbac}/clusterroles`, { body: writer });
    await f.json('POST', `${rbac}/clusterrolebindings`, { body: { metadata: { name: 'v-cr' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-writer' }, subjects: [{ kind: 'User', name: 'viewer' }] } });
    expect((await asViewer(`${rbac}/clusterroles`, { metadata: { name: 'plain' }, rules: [] })).status).toBe(201);
    const res = await asViewer(`${rbac}/clusterroles`, aggregating);
    expect([res.status, res.body.message]).toEqual([403, 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule']);
  });
});

describe('the bootstrap policy at start', () => {
  it('is created once, and a built-in role marked autoupdate gets back the rules taken from it', async () => {
    const f = await apiFixture();
    const admin = f.api.loopback(ADMIN_TOKEN);
    await ensureBootstrapPolicy(admin, f.api.registry.defs);
    const ref = { group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'system:basic-user' };
    await admin.patch(ref, { rules: [] }, 'merge');
    await ensureBootstrapPolicy(admin, f.api.registry.defs);
    expect((await admin.get<{ rules: unknown[] } & KubeObject>(ref)).rules).toHaveLength(2);
  });
});
