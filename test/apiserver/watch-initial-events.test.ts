import { describe, expect, it } from 'vitest';
import type { WireWatchEvent } from '../../cloud/apiserver/request.js';
import type { Pod } from '../../shared/types.js';
import { apiFixture, collect, pod } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const merge = 'application/merge-patch+json';
const seen = (events: WireWatchEvent[]): string[] => events.map((e) => `${e.type}:${(e.object as Pod).metadata?.name ?? (e.object as Pod).metadata?.resourceVersion}`);

describe('watch sendInitialEvents and bookmarks', () => {
  it('sends the state as ADDED events, then a bookmark marking their end, then changes', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    await f.json('POST', pods, { body: pod('b') });
    const listed = String(f.store.revision);
    const query = { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' };
    const res = await f.send('GET', pods, { query });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(0);
    await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { x: '1' } } }, contentType: merge });
    c.stop();
    expect(seen(c.seen)).toEqual(['ADDED:a', 'ADDED:b', `BOOKMARK:${listed}`, 'MODIFIED:a']);
    expect(c.seen[2]!.object).toEqual({ kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: listed, annotations: { 'k8s.io/initial-events-end': 'true' } } });
  });

  it('sends only changes with sendInitialEvents=false', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const res = await f.send('GET', pods, { query: { watch: 'true', sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' } });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(0);
    await f.json('POST', pods, { body: pod('b') });
    c.stop();
    expect(seen(c.seen)).toEqual(['ADDED:b']);
  });

  it("refuses kube's invalid watch options with 422", async () => {
    const f = await apiFixture();
    const cases: [Record<string, string>, string][] = [
      [{ sendInitialEvents: 'true' }, 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      [{ resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    ];
    for (const [query, why] of cases) {
      const res = await f.json<{ message: string }>('GET', pods, { query: { watch: 'true', ...query } });
      expect([res.status, res.body.message]).toEqual([422, `ListOptions.meta.k8s.io "" is invalid: ${why}`]);
    }
    const exact = await f.json<{ message: string }>('GET', pods, { query: { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'Exact', resourceVersion: '1' } });
    expect(exact.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    );
  });
});
