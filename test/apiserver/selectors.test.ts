import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector } from '../../cloud/apiserver/rest/selectors.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, pod } from '../support/api-fixture.js';

describe('selectors', () => {
  it('parses label selectors', () => {
    const sel = parseLabelSelector('app=web,tier!=db,env in (prod, staging),!canary,zone');
    expect(sel({ app: 'web', env: 'prod', zone: 'a' })).toBe(true);
    expect(sel({ app: 'web', env: 'prod', zone: 'a', tier: 'db' })).toBe(false);
    expect(sel({ app: 'web', env: 'dev', zone: 'a' })).toBe(false);
    expect(sel({ app: 'web', env: 'prod', zone: 'a', canary: 'yes' })).toBe(false);
    expect(sel({ app: 'web', env: 'prod' })).toBe(false);
    expect(parseLabelSelector('app==web')({ app: 'web' })).toBe(true);
    expect(parseLabelSelector('')({})).toBe(true);
  });

  it('parses field selectors with =, ==, != and empty values, refusing unknown fields', () => {
    const known = ['metadata.name', 'spec.nodeName', 'status.phase'];
    const sel = parseFieldSelector('spec.nodeName=,status.phase!=Succeeded,status.phase!=Failed', known);
    expect(sel({ 'metadata.name': 'a', 'spec.nodeName': '', 'status.phase': 'Pending' })).toBe(true);
    expect(sel({ 'metadata.name': 'a', 'spec.nodeName': 'n1', 'status.phase': 'Pending' })).toBe(false);
    expect(sel({ 'metadata.name': 'a', 'spec.nodeName': '', 'status.phase': 'Failed' })).toBe(false);
    expect(parseFieldSelector('metadata.name==a', known)({ 'metadata.name': 'a' })).toBe(true);
    expect(() => parseFieldSelector('spec.bogus=1', known)).toThrow(/field label not supported/);
  });

  it('filters lists by labelSelector and fieldSelector', async () => {
    const f = await apiFixture();
    const base = '/api/v1/namespaces/default/pods';
    await f.json('POST', base, { body: { ...pod('a'), metadata: { name: 'a', labels: { app: 'web' } } } });
    await f.json('POST', base, { body: { ...pod('b'), metadata: { name: 'b', labels: { app: 'db' } } } });
    await f.json('POST', `${base}/b/binding`, { body: { target: { name: 'edge-1' } } });
    const names = async (query: Record<string, string>, path = base): Promise<string[]> =>
      (await f.json<{ items: Pod[] }>('GET', path, { query })).body.items.map((p) => p.metadata.name!);
    expect(await names({ labelSelector: 'app=web' })).toEqual(['a']);
    expect(await names({ labelSelector: 'app!=web' })).toEqual(['b']);
    expect(await names({ fieldSelector: 'spec.nodeName=edge-1' }, '/api/v1/pods')).toEqual(['b']);
    expect(await names({ fieldSelector: 'spec.nodeName=' })).toEqual(['a']);
    expect(await names({ fieldSelector: 'metadata.name=a,metadata.namespace=default' })).toEqual(['a']);
    expect(await names({ fieldSelector: 'status.phase!=Pending' })).toEqual([]);
    const bad = await f.json<{ reason: string }>('GET', base, { query: { fieldSelector: 'spec.host=x' } });
    expect(bad.status).toBe(400);
  });
});
