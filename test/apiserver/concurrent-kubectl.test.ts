import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

interface Live {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

/** The contract: concurrent kubectl label|annotate|patch on one object all succeed, as against kube-apiserver. */
describe.skipIf(!hasKubectl)('concurrent kubectl writes to one ConfigMap', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const parallel = (n: number, args: (i: number) => string[]): Promise<Run[]> => Promise.all(Array.from({ length: n }, (_, i) => kubectl(...args(i))));
  const failures = (runs: Run[]): Run[] => runs.filter((r) => r.code !== 0);

  beforeAll(async () => {
    // Each store call takes a few ms, as etcd's round trip does, so that the writes overlap.
    f = await httpApiFixture({ storeLatencyMs: 5 });
    expect((await kubectl('create', 'configmap', 'shared')).code).toBe(0);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('50 concurrent kubectl label --overwrite all succeed', async () => {
    const runs = await parallel(50, (i) => ['label', '--overwrite', 'configmap', 'shared', `l${i}=v${i}`]);
    expect(failures(runs)).toEqual([]);
    const live = JSON.parse((await kubectl('get', 'configmap', 'shared', '-o', 'json')).stdout) as Live;
    expect(Object.keys(live.metadata.labels ?? {})).toHaveLength(50);
  }, 120_000);

  it('concurrent kubectl annotate and kubectl patch all succeed', async () => {
    const runs = await Promise.all([
      parallel(20, (i) => ['annotate', '--overwrite', 'configmap', 'shared', `a${i}=v`]),
      parallel(20, (i) => ['patch', 'configmap', 'shared', '--type', 'merge', '-p', JSON.stringify({ data: { [`k${i}`]: 'v' } })]),
    ]);
    expect(failures(runs.flat())).toEqual([]);
    const live = JSON.parse((await kubectl('get', 'configmap', 'shared', '-o', 'json')).stdout) as Live;
    expect(Object.keys(live.metadata.annotations ?? {})).toHaveLength(20);
    expect(Object.keys(live.data ?? {})).toHaveLength(20);
  }, 120_000);
});
