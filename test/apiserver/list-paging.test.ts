import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { apiFixture, pod, type ApiFixture } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

interface PodList {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Pod[];
}

async function createPods(f: ApiFixture, names: string[], labels: (name: string) => Record<string, string> = () => ({})): Promise<void> {
  for (const name of names) await f.json('POST', pods, { body: pod(name, { metadata: { name, labels: labels(name) } }) });
}

async function page(f: ApiFixture, path: string, query: Record<string, string>): Promise<PodList> {
  const res = await f.json<PodList>('GET', path, { query });
  expect(res.status).toBe(200);
  return res.body;
}

const names = (list: { items: Pod[] }): string[] => list.items.map((p) => p.metadata.name!);
const tokenOf = (token: string): unknown => JSON.parse(Buffer.from(token, 'base64url').toString());

describe('list limit and continue', () => {
  it('pages a namespaced list with kube continue tokens and remainingItemCount', async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b', 'c', 'd', 'e']);
    const first = await page(f, pods, { limit: '2' });
    expect(names(first)).toEqual(['a', 'b']);
    expect(first.metadata.remainingItemCount).toBe(3);
    expect(tokenOf(first.metadata.continue!)).toEqual({ v: 'meta.k8s.io/v1', rv: Number(first.metadata.resourceVersion), start: 'b\u0000' });
    const second = await page(f, pods, { limit: '2', continue: first.metadata.continue! });
    expect(names(second)).toEqual(['c', 'd']);
    expect(second.metadata.remainingItemCount).toBe(1);
    const last = await page(f, pods, { limit: '2', continue: second.metadata.continue! });
    expect(names(last)).toEqual(['e']);
    expect(last.metadata).toEqual({ resourceVersion: first.metadata.resourceVersion });
  });

  it('pages across namespaces, tokens starting at namespace/name', async () => {
    const f = await apiFixture();
    await f.json('POST', '/api/v1/namespaces', { body: { metadata: { name: 'other' } } });
    await createPods(f, ['a', 'b']);
    await f.json('POST', '/api/v1/namespaces/other/pods', { body: pod('c') });
    const first = await page(f, '/api/v1/pods', { limit: '2' });
    expect(first.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['default/a', 'default/b']);
    expect((tokenOf(first.metadata.continue!) as { start: string }).start).toBe('default/b\u0000');
    const rest = await page(f, '/api/v1/pods', { limit: '2', continue: first.metadata.continue! });
    expect(rest.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual(['other/c']);
  });

  it('fills each page through a selector, without remainingItemCount', async () => {
    const f = await apiFixture();
    const all = Array.from({ length: 10 }, (_, i) => `p${i}`);
    await createPods(f, all, (name) => ({ tier: Number(name.slice(1)) % 2 === 0 ? 'even' : 'odd' }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const list = await page(f, pods, { limit: '2', labelSelector: 'tier=even', ...(token ? { continue: token } : {}) });
      expect(list.metadata.remainingItemCount).toBeUndefined();
      seen.push(...names(list));
      token = list.metadata.continue;
    } while (token);
    expect(seen).toEqual(['p0', 'p2', 'p4', 'p6', 'p8']);
    const byField = await page(f, pods, { limit: '1', fieldSelector: 'metadata.name!=p0' });
    expect(names(byField)).toEqual(['p1']);
    expect(byField.metadata.remainingItemCount).toBeUndefined();
  });

  it("continues at the first page's resourceVersion, whatever was written since", async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b', 'c', 'd']);
    const first = await page(f, pods, { limit: '2' });
    await f.json('DELETE', `${pods}/c`);
    await f.json('PATCH', `${pods}/d`, { body: { metadata: { labels: { changed: 'yes' } } }, contentType: 'application/merge-patch+json' });
    await createPods(f, ['e']);
    const rest = await page(f, pods, { continue: first.metadata.continue! });
    expect(names(rest)).toEqual(['c', 'd']);
    expect(rest.items[1]!.metadata.labels).toEqual({});
    expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
  });

  it('answers 410 Expired with an inconsistent continue token once the revision is compacted', async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b', 'c']);
    const first = await page(f, pods, { limit: '1' });
    await f.json('DELETE', `${pods}/c`);
    await f.store.compact(f.store.revision);
    const res = await f.json<{ code: number; reason: string; message: string; metadata: { continue: string } }>('GET', pods, { query: { limit: '1', continue: first.metadata.continue! } });
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(res.body.message).toBe(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    expect(tokenOf(res.body.metadata.continue)).toEqual({ v: 'meta.k8s.io/v1', rv: -1, start: 'a\u0000' });
    const rest = await page(f, pods, { continue: res.body.metadata.continue });
    expect(names(rest)).toEqual(['b']);
    expect(rest.metadata.resourceVersion).toBe(String(f.store.revision));
  });

  it('refuses malformed tokens, and a resourceVersion beside a continue, with 400', async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b']);
    const good = (await page(f, pods, { limit: '1' })).metadata.continue!;
    const bad = (token: unknown): string => Buffer.from(JSON.stringify(token)).toString('base64url');
    const cases: [string, string][] = [
      ['not base64!', 'invalid continue token: continue key is not valid: illegal base64 data'],
      [bad({ v: 'meta.k8s.io/v2', rv: 3, start: 'a' }), 'invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2'],
      [bad({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [bad({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), 'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)'],
      [bad({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), 'invalid continue token: continue key is not valid: ../secrets/x'],
    ];
    for (const [token, message] of cases) {
      const res = await f.json<{ message: string; reason: string }>('GET', pods, { query: { limit: '1', continue: token } });
      expect({ status: res.status, reason: res.body.reason, message: res.body.message }).toEqual({ status: 400, reason: 'BadRequest', message });
    }
    const both = await f.json<{ message: string }>('GET', pods, { query: { continue: good, resourceVersion: '5' } });
    expect([both.status, both.body.message]).toEqual([400, 'specifying resource version is not allowed when using continue']);
  });

  it('pages Tables (kubectl get) with continue and remainingItemCount in their metadata', async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b', 'c']);
    const first = await f.json<{ kind: string; metadata: PodList['metadata']; rows: unknown[] }>('GET', pods, { query: { limit: '2' }, accept: TABLE });
    expect(first.body.kind).toBe('Table');
    expect(first.body.rows).toHaveLength(2);
    expect(first.body.metadata.remainingItemCount).toBe(1);
    const rest = await f.json<{ metadata: PodList['metadata']; rows: unknown[] }>('GET', pods, { query: { limit: '2', continue: first.body.metadata.continue! }, accept: TABLE });
    expect(rest.body.rows).toHaveLength(1);
    expect(rest.body.metadata).toEqual({ resourceVersion: first.body.metadata.resourceVersion });
  });

  it('ignores limit for resourceVersion=0, served whole as kube 1.32 serves it from its watch cache', async () => {
    const f = await apiFixture();
    await createPods(f, ['a', 'b', 'c']);
    const list = await page(f, pods, { limit: '1', resourceVersion: '0' });
    expect(names(list)).toEqual(['a', 'b', 'c']);
    expect(list.metadata.continue).toBeUndefined();
  });
});
