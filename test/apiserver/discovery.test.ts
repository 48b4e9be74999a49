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
    expect(groups.body.groups.map((g) => g.name)).toEqual(['apps']);
    const v1 = await f.json<{ kind: string; groupVersion: string; resources: ResourceEntry[] }>('GET', '/api/v1');
    expect(v1.body.kind).toBe('APIResourceList');
    expect(v1.body.groupVersion).toBe('v1');
    const byName = new Map(v1.body.resources.map((r) => [r.name, r]));
    expect([...byName.keys()]).toEqual([
      'namespaces', 'namespaces/status', 'namespaces/finalize', 'nodes', 'nodes/status', 'pods', 'pods/status', 'pods/binding',
      'events', 'services', 'services/status', 'endpoints',
    ]);
    expect(byName.get('pods')).toMatchObject({ namespaced: true, kind: 'Pod', shortNames: ['po'], categories: ['all'] });
    expect(byName.get('pods')!.verbs).toContain('watch');
    expect(byName.get('nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(byName.get('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect((await f.json('GET', '/apis/batch/v1')).status).toBe(404);
  });
});
