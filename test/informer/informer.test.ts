import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiWatchEvent } from '../../cloud/client/client.js';
import { diffRelist, informer, type CacheEvent } from '../../cloud/informer/informer.js';
import { FakeClock, settle } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import type { KubeObject, ObjectList } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';

const obj = (uid: string, rv: string): KubeObject => ({ metadata: { name: uid, uid, resourceVersion: rv } });
const summary = (events: CacheEvent<KubeObject>[]) => events.map((e) => (e.type === 'SYNCED' ? 'SYNCED' : `${e.type} ${e.object.metadata.uid}@${e.object.metadata.resourceVersion}`));

describe('diffRelist', () => {
  it('turns a fresh list into the events the cache missed', () => {
    const cache = new Map([['a', obj('a', '1')], ['b', obj('b', '2')], ['c', obj('c', '3')]]);
    expect(summary(diffRelist(cache, [obj('a', '1'), obj('b', '7'), obj('d', '8')]))).toEqual(['MODIFIED b@7', 'ADDED d@8', 'DELETED c@3']);
  });
});

/** An ApiClient whose lists are scripted and whose watches the test drives. */
function scripted(lists: KubeObject[][]) {
  const watches: Subject<ApiWatchEvent>[] = [];
  const watchedFrom: (string | undefined)[] = [];
  let rv = 10;
  const api = {
    list: async () => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(rv++) }, items: lists.shift() ?? [] }) as ObjectList,
    watch: (_ref: unknown, options?: { resourceVersion?: string }) => {
      watchedFrom.push(options?.resourceVersion);
      const s = new Subject<ApiWatchEvent>();
      watches.push(s);
      return s.asObservable();
    },
  } as unknown as ApiClient;
  return { api, watches, watchedFrom };
}

describe('informer', () => {
  it('lists, watches from the list, and relists after Expired', async () => {
    const { api, watches, watchedFrom } = scripted([[obj('a', '1'), obj('b', '2')], [obj('a', '5'), obj('c', '6')]]);
    const events: CacheEvent<KubeObject>[] = [];
    const sub = informer(api, { resource: 'pods' }, { clock: new FakeClock(), logger: silentLogger }).subscribe((e) => events.push(e));
    await settle();
    watches[0]!.next({ type: 'MODIFIED', object: obj('b', '4') });
    watches[0]!.next({ type: 'MODIFIED', object: obj('b', '4') }); // duplicate: ignored
    watches[0]!.error(new KedgeError('Expired', 'too old'));
    await settle();
    expect(summary(events)).toEqual(['ADDED a@1', 'ADDED b@2', 'SYNCED', 'MODIFIED b@4', 'MODIFIED a@5', 'ADDED c@6', 'DELETED b@4', 'SYNCED']);
    expect(watchedFrom).toEqual(['10', '11']);
    sub.unsubscribe();
    expect(watches[1]!.observed).toBe(false);
  });

  it('waits retryMs on the clock after other errors', async () => {
    const { api, watches } = scripted([[obj('a', '1')], [obj('a', '1')]]);
    const clock = new FakeClock();
    const events: CacheEvent<KubeObject>[] = [];
    const sub = informer(api, { resource: 'pods' }, { clock, logger: silentLogger, retryMs: 500 }).subscribe((e) => events.push(e));
    await settle();
    watches[0]!.error(new KedgeError('Unavailable', 'down'));
    await clock.advance(499);
    expect(watches).toHaveLength(1);
    await clock.advance(1);
    expect(watches).toHaveLength(2);
    expect(summary(events)).toEqual(['ADDED a@1', 'SYNCED', 'SYNCED']);
    sub.unsubscribe();
    expect(clock.pending).toBe(0);
  });

  it('follows a real (fake) apiserver: recreate under the same name is delete + add', async () => {
    const api = new FakeApiClient();
    const events: CacheEvent<KubeObject>[] = [];
    const sub = informer(api, { resource: 'nodes' }, { clock: new FakeClock(), logger: silentLogger }).subscribe((e) => events.push(e));
    await settle();
    const first = await api.create<KubeObject>({ resource: 'nodes' }, { metadata: { name: 'n' } });
    await api.delete({ resource: 'nodes', name: 'n' });
    const second = await api.create<KubeObject>({ resource: 'nodes' }, { metadata: { name: 'n' } });
    sub.unsubscribe();
    expect(events.map((e) => (e.type === 'SYNCED' ? e.type : `${e.type} ${e.object.metadata.uid}`))).toEqual([
      'SYNCED',
      `ADDED ${first.metadata.uid}`,
      `DELETED ${first.metadata.uid}`,
      `ADDED ${second.metadata.uid}`,
    ]);
  });
});
