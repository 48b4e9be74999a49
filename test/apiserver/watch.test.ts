import { describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import type { WireWatchEvent } from '../../cloud/apiserver/request.js';
import { apiFixture, collect, pod, takeEvents } from '../support/api-fixture.js';

const pods = '/api/v1/namespaces/default/pods';
const names = (events: WireWatchEvent[]): string[] => events.map((e) => `${e.type}:${(e.object as Pod).metadata?.name ?? ''}`);

describe('watch', () => {
  it('starts with synthetic ADDED events without a resourceVersion, then follows changes', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const res = await f.send('GET', pods, { query: { watch: 'true' } });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(0);
    await f.json('POST', pods, { body: pod('b') });
    await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { x: '1' } } }, contentType: 'application/merge-patch+json' });
    await f.json('DELETE', `${pods}/b`);
    c.stop();
    expect(names(c.seen)).toEqual(['ADDED:a', 'ADDED:b', 'MODIFIED:a', 'DELETED:b']);
    const obj = c.seen[1]!.object as Pod;
    expect(obj.kind).toBe('Pod');
    expect(obj.apiVersion).toBe('v1');
  });

  it('resumes after a resourceVersion with only later events', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const rv = (await f.json<{ metadata: { resourceVersion: string } }>('GET', pods)).body.metadata.resourceVersion;
    await f.json('POST', pods, { body: pod('b') });
    const events = await takeEvents(await f.send('GET', pods, { query: { watch: '1', resourceVersion: rv } }), 1);
    expect(names(events)).toEqual(['ADDED:b']);
    expect((events[0]!.object as Pod).metadata.resourceVersion).toBe(String(f.store.revision));
  });

  it('sends 410 Expired as an ERROR event when the resourceVersion is too old', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    await f.store.compact(f.store.revision);
    const events = await takeEvents(await f.send('GET', pods, { query: { watch: 'true', resourceVersion: '1' } }), 1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
  });

  it('filters by selector: objects entering are ADDED, leaving are DELETED', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    const rv = String(f.store.revision);
    const res = await f.send('GET', pods, { query: { watch: 'true', resourceVersion: rv, labelSelector: 'app=web' } });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(0);
    const merge = 'application/merge-patch+json';
    await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { app: 'web' } } }, contentType: merge });
    await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { app: 'web', v: '2' } } }, contentType: merge });
    await f.json('PATCH', `${pods}/a`, { body: { metadata: { labels: { app: 'db' } } }, contentType: merge });
    c.stop();
    expect(names(c.seen)).toEqual(['ADDED:a', 'MODIFIED:a', 'DELETED:a']);
  });

  it('sends bookmarks when allowed and closes after timeoutSeconds, on the injected clock', async () => {
    const f = await apiFixture();
    const res = await f.send('GET', pods, { query: { watch: 'true', resourceVersion: String(f.store.revision), allowWatchBookmarks: 'true', timeoutSeconds: '90' } });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(60_000);
    expect(c.seen).toEqual([{ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(f.store.revision) } } }]);
    expect(c.done()).toBe(false);
    await f.clock.advance(30_000);
    expect(c.done()).toBe(true);
    expect(f.clock.pending).toBe(0);
  });

  it("ends a watch that names no timeout after kube's min-request-timeout, 30 to 60 minutes", async () => {
    const f = await apiFixture();
    const res = await f.send('GET', pods, { query: { watch: 'true', resourceVersion: String(f.store.revision) } });
    if (res.type !== 'watch') throw new Error('not a watch');
    const c = collect(res.events);
    await f.clock.advance(30 * 60_000 - 1);
    expect(c.done()).toBe(false);
    await f.clock.advance(30 * 60_000);
    expect(c.done()).toBe(true);
    expect(f.clock.pending).toBe(0);
  });

  it('watches a single object by name', async () => {
    const f = await apiFixture();
    await f.json('POST', pods, { body: pod('a') });
    await f.json('POST', pods, { body: pod('b') });
    const events = await takeEvents(await f.send('GET', pods, { query: { watch: 'true', fieldSelector: 'metadata.name=b' } }), 1);
    expect(names(events)).toEqual(['ADDED:b']);
  });
});
