import { describe, expect, it } from 'vitest';
import type { WireWatchEvent } from '../../cloud/apiserver/request.js';
import { resourcePrefixes } from '../../cloud/apiserver/kinds/registry.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, collect, pod, type ApiFixture } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const events = '/api/v1/namespaces/default/events';

/** kube's watch cache sizes: every event of the last 75 s, at least 100, at most 102,400, per resource. */
const kubeWindows = (): Promise<ApiFixture> => apiFixture({ history: { historySize: undefined, resourcePrefixes: resourcePrefixes(clusterResources) } });

/** Events of a watch from `resourceVersion` while `act` runs. */
async function watchFrom(f: ApiFixture, path: string, resourceVersion: string, act: () => Promise<void> = async () => {}): Promise<WireWatchEvent[]> {
  const res = await f.send('GET', path, { query: { watch: 'true', resourceVersion } });
  if (res.type !== 'watch') throw new Error('not a watch');
  const c = collect(res.events);
  await f.clock.advance(0);
  await act();
  c.stop();
  return c.seen;
}

const summary = (seen: WireWatchEvent[]): string[] =>
  seen.map((e) => (e.type === 'ERROR' ? `ERROR:${(e.object as { message: string }).message}` : `${e.type}:${(e.object as Pod).metadata.name}`));

describe('a watch window per resource, sized by time', () => {
  it("keeps a resource's history however much another resource churns", async () => {
    const f = await kubeWindows();
    await f.json('POST', pods, { body: pod('a') });
    const before = String(f.store.revision);
    for (let i = 0; i < 11_000; i++) await f.store.create(`/registry/events/default/churn-${i}`, { metadata: { name: `churn-${i}`, namespace: 'default' } });
    await f.clock.advance(80_000);
    await f.store.create('/registry/events/default/last', { metadata: { name: 'last', namespace: 'default' } });
    const seen = await watchFrom(f, pods, before, async () => {
      await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { x: '1' } } }, contentType: 'application/merge-patch+json' });
    });
    expect(summary(seen)).toEqual(['MODIFIED:a']);
    const forgotten = f.store.revision - 1 - 100;
    expect(summary(await watchFrom(f, events, before))).toEqual([`ERROR:too old resource version: ${before} (${forgotten})`]);
  });

  it('forgets events older than 75 s beyond the last 100, and answers 410 Expired from before them', async () => {
    const f = await kubeWindows();
    const revisions: string[] = [];
    for (let i = 0; i < 150; i++) {
      await f.clock.advance(1_000);
      await f.json('POST', pods, { body: pod(`p${i}`) });
      revisions.push(String(f.store.revision));
    }
    const first = await watchFrom(f, pods, revisions[0]!);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired', message: `too old resource version: ${revisions[0]} (${revisions[49]})` } });
    const kept = await watchFrom(f, pods, revisions[49]!);
    expect(kept.map((e) => e.type)).toEqual(Array(100).fill('ADDED'));
  });

  it('keeps more than 100 events while they are younger than 75 s', async () => {
    const f = await kubeWindows();
    await f.json('POST', pods, { body: pod('first') });
    const from = String(f.store.revision);
    for (let i = 0; i < 300; i++) {
      await f.clock.advance(200);
      await f.json('POST', pods, { body: pod(`p${i}`) });
    }
    expect(await watchFrom(f, pods, from)).toHaveLength(300);
  });
});
