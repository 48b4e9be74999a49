import { firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import { KedgeError } from '../../shared/errors.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { freshPrefix, openTestStore, startTestEtcd } from '../support/etcd.js';
import { waitFor } from '../support/wait.js';

/** What only a real etcd shows: crashes, quorum, other writers, paging. */
describe('EtcdStore on real etcd members', () => {
  const clusters: EtcdCluster[] = [];
  const stores: EtcdStore[] = [];

  async function cluster(size: number): Promise<EtcdCluster> {
    const started = await startTestEtcd(size);
    clusters.push(started);
    return started;
  }

  async function storeOn(etcd: EtcdCluster, options: Parameters<typeof openTestStore>[1] = {}): Promise<EtcdStore> {
    const store = await openTestStore(etcd, options);
    stores.push(store);
    return store;
  }

  async function failure(promise: Promise<unknown>): Promise<KedgeError> {
    const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(KedgeError);
    return err as KedgeError;
  }

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const etcd of clusters.splice(0)) await etcd.close();
  });

  it('keeps an acknowledged write through kill -9 and restart of its only member, and answers 503 while it is down', async () => {
    const etcd = await cluster(1);
    const store = await storeOn(etcd);
    const written = await store.create('/pods/a', { v: 1 });
    await etcd.kill(0);
    const down = await failure(store.get('/pods/a'));
    expect(down.code).toBe('Unavailable');
    expect(down.httpStatus).toBe(503);
    expect(down.message).toMatch(/^etcd: .*(ECONNREFUSED|No connection|circuit)/);

    await etcd.start(0);
    const again = await waitFor(() => store.get('/pods/a').catch(() => undefined), 'the store to read again');
    expect(again).toEqual(written);
    expect((await store.create('/pods/b', {})).modRevision).toBe(written.modRevision + 1);
  });

  it('goes on writing with one of three members stopped, fails writes with 503 and etcd\'s words with two stopped, and resumes with quorum back', async () => {
    const etcd = await cluster(3);
    const store = await storeOn(etcd);
    await store.create('/k/0', {});
    await etcd.stop(1);
    await store.create('/k/1', {});

    await etcd.stop(2);
    const noQuorum = await failure(store.create('/k/2', {}));
    expect(noQuorum.code).toBe('Unavailable');
    expect(noQuorum.message).toMatch(/etcdserver: request timed out/);

    await etcd.start(2);
    await waitFor(() => store.create('/k/3', {}).catch(() => undefined), 'writes to resume');
    const keys = (await store.list('/k/')).items.map((kv) => kv.key);
    expect(keys).toEqual(expect.arrayContaining(['/k/0', '/k/1', '/k/3']));
  }, 60_000);

  it('follows other writers: revision moves and watches see their writes', async () => {
    const etcd = await cluster(1);
    const prefix = freshPrefix();
    const mine = await storeOn(etcd, { prefix });
    const other = await storeOn(etcd, { prefix });
    const before = mine.revision;
    const written = await other.create('/x', { by: 'other' });
    await waitFor(() => mine.revision === written.modRevision, "the other writer's revision");
    const seen = await firstValueFrom(mine.watch('/', before).pipe(take(1), toArray()));
    expect(seen[0]).toMatchObject({ type: 'put', kv: { key: '/x', value: { by: 'other' }, modRevision: written.modRevision } });
  });

  it('ends a watch from a revision another client compacted with 410 Expired', async () => {
    const etcd = await cluster(1);
    const prefix = freshPrefix();
    const compactor = await storeOn(etcd, { prefix });
    const unaware = await storeOn(etcd, { prefix });
    const from = unaware.revision;
    for (let i = 0; i < 3; i++) await compactor.create(`/k/${i}`, {});
    await compactor.compact(compactor.revision);
    expect(unaware.compactedRevision).toBe(0); // it did not compact: only etcd can say
    // From before the store's own follower listed (its history holds nothing older), so etcd serves the watch.
    const err: unknown = await new Promise((resolve) => unaware.watch('/', from - 1).subscribe({ error: resolve }));
    expect(err).toBeInstanceOf(KedgeError);
    expect((err as KedgeError).httpStatus).toBe(410);
    expect((err as KedgeError).message).toMatch(/^too old resource version: \d+ \(etcd: Watcher canceled/);
  });

  it('resumes a watch across a member restart without losing events', async () => {
    const etcd = await cluster(1);
    const store = await storeOn(etcd);
    const keys: string[] = [];
    const watching = store.watch('/', store.revision).subscribe((e) => keys.push(e.kv.key));
    await store.create('/before', {});
    await waitFor(() => keys.length === 1, 'the watch to see the first write');
    await etcd.kill(0);
    await etcd.start(0);
    await waitFor(() => store.create('/after', {}).catch(() => undefined), 'writes after the restart');
    await waitFor(() => keys.length === 2, 'the resumed watch to see the write after the restart');
    watching.unsubscribe();
    expect(keys).toEqual(['/before', '/after']);
  });

  it('lists a range bigger than a page, page by page, at one revision', async () => {
    const etcd = await cluster(1);
    const store = await storeOn(etcd, { pageSize: 2 });
    const keys = ['/p/e', '/p/a', '/p/d', '/p/b', '/p/c'];
    for (const key of keys) await store.create(key, { key });
    const listed = await store.list('/p/');
    expect(listed.items.map((kv) => kv.key)).toEqual([...keys].sort());
    expect(listed.revision).toBe(store.revision);
  });

  it('fails to open with 503 when no endpoint answers', async () => {
    const etcd = await cluster(1);
    await etcd.stop(0);
    const err = await failure(openTestStore(etcd));
    expect(err.httpStatus).toBe(503);
  });
});
