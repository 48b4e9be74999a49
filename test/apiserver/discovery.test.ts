import { describe, expect, it } from 'vitest';
import { apiFixture } from '../support/api-fixture.js';

interface ResourceEntry {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

describe('discovery', () => {
  it('serves /api, /apis and /api/v1 from the resource table', async () => {
    const f = await apiFixture();
    expect((await f.json('GET', '/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0' }] });
    const groups = await f.json<{ kind: string; groups: { name: string }[] }>('GET', '/apis');
    expect(groups.body.kind).toBe('APIGroupList');
    expect(groups.body.groups.map((g) => g.name)).toEqual(['apps', 'batch', 'coordination.k8s.io', 'node.k8s.io', 'storage.k8s.io', 'discovery.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io']);
    const v1 = await f.json<{ kind: string; groupVersion: string; resources: ResourceEntry[] }>('GET', '/api/v1');
    expect(v1.body.kind).toBe('APIResourceList');
    expect(v1.body.groupVersion).toBe('v1');
    const byName = new Map(v1.body.resources.map((r) => [r.name, r]));
    expect([...byName.keys()]).toEqual([
      'namespaces', 'namespaces/status', 'namespaces/finalize', 'nodes', 'nodes/status', 'pods', 'pods/status', 'pods/binding', 'pods/eviction', 'pods/log', 'pods/attach', 'pods/exec', 'pods/portforward',
      'events', 'services', 'services/status', 'endpoints', 'configmaps', 'secrets',
      'persistentvolumes', 'persistentvolumes/status', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'serviceaccounts',
    ]);
    expect(byName.get('pods')).toMatchObject({ namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'] });
    expect(byName.get('pods')!.verbs).toContain('watch');
    expect(byName.get('nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(byName.get('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    // kubectl drain looks for exactly this entry before it evicts instead of deleting.
    expect(byName.get('pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName.get('configmaps')).toMatchObject({ namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
    expect(byName.get('configmaps')).not.toHaveProperty('categories');
    expect(byName.get('secrets')).toMatchObject({ namespaced: true, kind: 'Secret' });
    expect(byName.get('secrets')).not.toHaveProperty('shortNames');
    const coordination = await f.json<{ resources: ResourceEntry[] }>('GET', '/apis/coordination.k8s.io/v1');
    expect(coordination.body.resources).toEqual([expect.objectContaining({ name: 'leases', singularName: 'lease', namespaced: true, kind: 'Lease' })]);
    const node = await f.json<{ resources: ResourceEntry[] }>('GET', '/apis/node.k8s.io/v1');
    expect(node.body.resources).toEqual([expect.objectContaining({ name: 'runtimeclasses', singularName: 'runtimeclass', namespaced: false, kind: 'RuntimeClass' })]);
    expect((await f.json('GET', '/apis/widgets.example.com/v1')).status).toBe(404);
  });
});
