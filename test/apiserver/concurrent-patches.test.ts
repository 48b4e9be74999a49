import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/types.js';
import { apiFixture } from '../support/api-fixture.js';

const configmaps = '/api/v1/namespaces/default/configmaps';
const deployments = '/apis/apps/v1/namespaces/default/deployments';
const N = 50;

async function withConfigMap(): Promise<Awaited<ReturnType<typeof apiFixture>>> {
  const f = await apiFixture();
  expect((await f.json('POST', configmaps, { body: { metadata: { name: 'shared' }, data: {} } })).status).toBe(201);
  return f;
}

/** kube-apiserver retries a write without a resourceVersion precondition until it lands (GuaranteedUpdate). */
describe('concurrent writes to one object', () => {
  it.each([
    ['application/merge-patch+json', (i: number) => ({ metadata: { labels: { [`l${i}`]: 'x' } } })],
    ['application/strategic-merge-patch+json', (i: number) => ({ metadata: { annotations: { [`a${i}`]: 'x' } } })],
    ['application/json-patch+json', (i: number) => [{ op: 'add', path: `/data/k${i}`, value: String(i) }]],
  ])(`%s: ${N} concurrent patches without a resourceVersion all succeed`, async (contentType, body) => {
    const f = await withConfigMap();
    const results = await Promise.all(Array.from({ length: N }, (_, i) => f.json('PATCH', `${configmaps}/shared`, { body: body(i), contentType })));
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(200));
    const final = (await f.json<KubeObject & { data?: Record<string, string> }>('GET', `${configmaps}/shared`)).body;
    const written = { ...final.metadata.labels, ...final.metadata.annotations, ...final.data };
    expect(Object.keys(written)).toHaveLength(N);
  });

  it('server-side applies by 50 managers at once all succeed', async () => {
    const f = await withConfigMap();
    const applies = Array.from({ length: N }, (_, i) => f.json('PATCH', `${configmaps}/shared`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { [`k${i}`]: 'v' } },
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: `m${i}` },
    }));
    expect((await Promise.all(applies)).map((r) => r.status)).toEqual(Array(N).fill(200));
  });

  it('scale and label patches of one Deployment at once all succeed: /scale queues with the other writes', async () => {
    const f = await apiFixture();
    const deployment = { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] } } } };
    expect((await f.json('POST', deployments, { body: deployment })).status).toBe(201);
    const merge = 'application/merge-patch+json';
    const writes = Array.from({ length: N }, (_, i) =>
      i % 2 === 0
        ? f.json('PATCH', `${deployments}/web/scale`, { body: { spec: { replicas: i } }, contentType: merge })
        : f.json('PATCH', `${deployments}/web`, { body: { metadata: { labels: { [`l${i}`]: 'x' } } }, contentType: merge }));
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(N).fill(200));
    const final = (await f.json<KubeObject & { spec: { replicas: number } }>('GET', `${deployments}/web`)).body;
    expect(Object.keys(final.metadata.labels ?? {})).toHaveLength(N / 2);
    expect(final.spec.replicas).toBe(N - 2);
  });

  it('a patch that carries a stale resourceVersion still fails with 409', async () => {
    const f = await withConfigMap();
    const rv = (await f.json<KubeObject>('GET', `${configmaps}/shared`)).body.metadata.resourceVersion;
    await f.json('PATCH', `${configmaps}/shared`, { body: { data: { a: '1' } }, contentType: 'application/merge-patch+json' });
    const stale = await f.json('PATCH', `${configmaps}/shared`, { body: { metadata: { resourceVersion: rv }, data: { b: '1' } }, contentType: 'application/merge-patch+json' });
    expect(stale).toMatchObject({ status: 409, body: { reason: 'Conflict' } });
  });
});
