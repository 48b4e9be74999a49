import { Etcd3 } from 'etcd3';
import { firstValueFrom, take, toArray, type Observable } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { KedgeError } from '../../shared/errors.js';
import { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import { etcdClientOptions } from '../../cloud/store/etcd/open-etcd-store.js';
import type { WatchEvent } from '../../cloud/store/store.js';
import { etcdForFile, freshPrefix } from '../support/etcd.js';

const brief = (e: WatchEvent): unknown[] => [e.type, e.kv.key, e.kv.value, e.prevKv?.value ?? null];
const first = (feed: Observable<WatchEvent>, n: number): Promise<WatchEvent[]> => firstValueFrom(feed.pipe(take(n), toArray()));

/** The etcd store serves its watches from the one watch its follower keeps, as kube-apiserver's watch cache does. */
describe('watches of an etcd store', () => {
  const etcd = etcdForFile();

  /** A store whose client counts the etcd watches it opens. */
  async function countingStore(): Promise<{ store: EtcdStore; watches: () => number }> {
    const options = await etcdClientOptions({ endpoints: etcd.cluster().endpoints });
    let watches = 0;
    const store = await EtcdStore.open(() => {
      const client = new Etcd3(options);
      const watch = client.watch.bind(client);
      client.watch = () => {
        watches++;
        return watch();
      };
      return client;
    }, { prefix: freshPrefix() });
    etcd.track(store);
    await vi.waitFor(() => expect(store.readCacheLoaded).toBe(true), { timeout: 10_000 });
    return { store, watches: () => watches };
  }

  it('gives many watchers every event, previous values included, over the one etcd watch the store follows', async () => {
    const { store, watches } = await countingStore();
    expect(watches()).toBe(1);
    const from = store.revision;
    const feeds = Array.from({ length: 5 }, (_, i) => first(store.watch(i % 2 ? '/pods/' : '/', from), 3));
    const created = await store.create('/pods/a', { v: 1 });
    await store.update('/pods/a', { v: 2 }, created.modRevision);
    await store.delete('/pods/a');
    const expected = [['put', '/pods/a', { v: 1 }, null], ['put', '/pods/a', { v: 2 }, { v: 1 }], ['delete', '/pods/a', { v: 2 }, { v: 2 }]];
    for (const events of await Promise.all(feeds)) expect(events.map(brief)).toEqual(expected);
    expect(watches()).toBe(1);
  });

  it('replays from a revision it holds, and watches etcd itself for one before its history', async () => {
    const { store, watches } = await countingStore();
    const a = await store.create('/a', { n: 1 });
    await store.create('/b', { n: 2 });
    await vi.waitFor(async () => expect((await first(store.watch('/', a.modRevision), 1)).map(brief)).toEqual([['put', '/b', { n: 2 }, null]]));
    expect(watches()).toBe(1);
    // The follower's history starts where its list was taken: older revisions are etcd's to replay.
    const old = await first(store.watch('/', 0), 1);
    expect(old.map(brief)).toEqual([['put', '/a', { n: 1 }, null]]);
    expect(watches()).toBe(2);
  });

  it('ends the watches it serves with Expired when it stops following (the client lists again)', async () => {
    const { store } = await countingStore();
    const served = store.watch('/', store.revision);
    const ended = new Promise<unknown>((resolve) => served.subscribe({ error: resolve }));
    await store.disconnect();
    expect(((await ended) as KedgeError).code).toBe('Expired');
  });
});
