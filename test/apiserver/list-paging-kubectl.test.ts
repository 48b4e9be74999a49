import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../cloud/apiserver/request.js';
import type { Pod } from '../../shared/types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

const PODS = 10_000;
const podsPath = '/api/v1/namespaces/default/pods';

/** The real kubectl pages through 10,000 pods with its default --chunk-size (500); the API client pages with limit=500. */
describe.skipIf(!hasKubectl)('paging 10,000 pods', () => {
  let f: HttpApiFixture;
  const lists: URLSearchParams[] = [];
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);

  beforeAll(async () => {
    f = await httpApiFixture({ tap: (req: ApiRequest) => req.method === 'GET' && req.path === podsPath && lists.push(req.query) });
    const api = f.api.loopback(f.token);
    const name = (i: number): string => `pod-${String(i).padStart(5, '0')}`;
    for (let start = 0; start < PODS; start += 250) {
      await Promise.all(
        Array.from({ length: 250 }, (_, j) => {
          const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: name(start + j), namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
          return api.create({ resource: 'pods', namespace: 'default' }, pod as Pod);
        }),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('kubectl get pods asks for 20 chunks of 500 and prints every pod once', async () => {
    lists.length = 0;
    const run = await kubectl('get', 'pods', '--no-headers');
    expect(run.stderr).toBe('');
    const printed = run.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]);
    expect(printed).toHaveLength(PODS);
    expect(new Set(printed).size).toBe(PODS);
    expect(lists).toHaveLength(PODS / 500);
    expect(lists.every((q) => q.get('limit') === '500')).toBe(true);
    expect(lists.filter((q) => q.has('continue'))).toHaveLength(PODS / 500 - 1);
  }, 60_000);

  it('pages with limit=500 through the API, each page at the first page\'s resourceVersion', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let resourceVersion: string | undefined;
    let pages = 0;
    do {
      const query = new URLSearchParams({ limit: '500', ...(token ? { continue: token } : {}) });
      const res = await f.api.handle({ method: 'GET', path: podsPath, query, headers: { accept: 'application/json', authorization: `Bearer ${f.token}` } });
      if (res.type !== 'json') throw new Error('not JSON');
      const body = res.body as { metadata: { continue?: string; resourceVersion: string; remainingItemCount?: number }; items: Pod[] };
      resourceVersion ??= body.metadata.resourceVersion;
      expect(body.metadata.resourceVersion).toBe(resourceVersion);
      expect(body.items).toHaveLength(500);
      pages++;
      if (body.metadata.continue) expect(body.metadata.remainingItemCount).toBe(PODS - pages * 500);
      seen.push(...body.items.map((p) => p.metadata.name!));
      token = body.metadata.continue;
    } while (token);
    expect(pages).toBe(20);
    expect(new Set(seen).size).toBe(PODS);
  }, 60_000);
});
