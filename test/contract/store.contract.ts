import { firstValueFrom, take, toArray, type Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, WatchEvent } from '../../cloud/store/store.js';
import { KedgeError } from '../../shared/errors.js';

/**
 * A backend under test. Revisions are asserted relative to the store's revision when opened
 * (`base`): 0 for a new embedded store, etcd's current revision for a fresh key prefix on a
 * shared etcd (etcd's revision is global). The bumps, their order and their gaplessness are
 * asserted exactly.
 */
export interface StoreUnderTest {
  store: Store;
  cleanup: () => Promise<void>;
}

export interface StoreTestOptions {
  /** Retain (at least) only this many recent revisions for watches; older ones expire. */
  historySize?: number;
}

export type StoreFactory = (options?: StoreTestOptions) => Promise<StoreUnderTest>;

/** The first `n` events of a watch, as [type, key, modRevision] triples. */
function firstEvents(feed: Observable<WatchEvent>, n: number): Promise<[string, string, number][]> {
  return firstValueFrom(feed.pipe(take(n), toArray())).then((events) => events.map((e) => [e.type, e.kv.key, e.kv.modRevision]));
}

async function expectError(promise: Promise<unknown>, code: string, status: number): Promise<void> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(KedgeError);
  expect((err as KedgeError).code).toBe(code);
  expect((err as KedgeError).httpStatus).toBe(status);
}

function watchError(feed: Observable<WatchEvent>): Promise<unknown> {
  return new Promise((resolve) => feed.subscribe({ next: () => resolve(undefined), error: resolve }));
}

/** The Store contract: every backend must pass it. */
export function storeContract(name: string, makeStore: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    /** The revision `store` opened at; `at(n)` is the revision of its n-th write. */
    let base: number;
    const at = (n: number): number => base + n;
    const cleanups: (() => Promise<void>)[] = [];

    async function open(options?: StoreTestOptions): Promise<Store> {
      const s = await makeStore(options);
      cleanups.push(s.cleanup);
      return s.store;
    }

    beforeEach(async () => {
      store = await open();
      base = store.revision;
    });

    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    it('creates and gets entries, bumping one global revision', async () => {
      const a = await store.create('/pods/a', { n: 1 });
      const b = await store.create('/nodes/b', { n: 2 });
      expect(a).toMatchObject({ key: '/pods/a', value: { n: 1 }, createRevision: at(1), modRevision: at(1) });
      expect(b).toMatchObject({ createRevision: at(2), modRevision: at(2) });
      expect(store.revision).toBe(at(2));
      expect(await store.get('/pods/a')).toEqual(a);
      expect(await store.get('/pods/missing')).toBeUndefined();
    });

    it('lists by prefix, sorted by key, with the current revision', async () => {
      for (const key of ['/pods/ns/c', '/pods/ns/a', '/nodes/x', '/pods/ns/b', '/pods/nsx/a']) await store.create(key, { key });
      const result = await store.list('/pods/ns/');
      expect(result.items.map((kv) => kv.key)).toEqual(['/pods/ns/a', '/pods/ns/b', '/pods/ns/c']);
      expect(result.revision).toBe(at(5));
      expect((await store.list('/')).items).toHaveLength(5);
      expect((await store.list('/none/')).items).toEqual([]);
    });

    it('lists a page from a key with a limit, saying how many entries are left', async () => {
      for (const key of ['/p/a', '/p/b', '/p/c', '/p/d', '/p/e', '/q/a']) await store.create(key, {});
      const first = await store.list('/p/', { limit: 2 });
      expect(first.items.map((kv) => kv.key)).toEqual(['/p/a', '/p/b']);
      expect(first.remaining).toBe(3);
      const next = await store.list('/p/', { fromKey: '/p/b\u0000', limit: 2, revision: first.revision });
      expect(next.items.map((kv) => kv.key)).toEqual(['/p/c', '/p/d']);
      expect(next.revision).toBe(first.revision);
      expect(next.remaining).toBe(1);
      const last = await store.list('/p/', { fromKey: '/p/d\u0000', limit: 2 });
      expect(last.items.map((kv) => kv.key)).toEqual(['/p/e']);
      expect(last.remaining).toBe(0);
    });

    it('lists as of an older revision in its history: later writes undone', async () => {
      await store.create('/p/a', { v: 1 });
      await store.create('/p/b', { v: 1 });
      const then = store.revision;
      await store.update('/p/a', { v: 2 });
      await store.delete('/p/b');
      await store.create('/p/c', { v: 1 });
      await store.create('/p/0', { v: 1 });
      const old = await store.list('/p/', { revision: then });
      expect(old.revision).toBe(then);
      expect(old.items.map((kv) => [kv.key, kv.value, kv.modRevision])).toEqual([['/p/a', { v: 1 }, at(1)], ['/p/b', { v: 1 }, at(2)]]);
      const page = await store.list('/p/', { revision: then, fromKey: '/p/a\u0000', limit: 5 });
      expect(page.items.map((kv) => kv.key)).toEqual(['/p/b']);
      expect((await store.list('/p/')).items.map((kv) => kv.key)).toEqual(['/p/0', '/p/a', '/p/c']);
    });

    it('refuses a list at a compacted revision (Expired) or one it has not reached (Timeout)', async () => {
      for (let i = 0; i < 4; i++) await store.create(`/p/${i}`, {});
      await store.compact(at(3));
      await expectError(store.list('/p/', { revision: at(2) }), 'Expired', 410);
      expect((await store.list('/p/', { revision: at(3) })).items).toHaveLength(3);
      await expectError(store.list('/p/', { revision: at(4) + 100 }), 'Timeout', 504);
    });

    it('refuses to create an existing key', async () => {
      await store.create('/k', { v: 1 });
      await expectError(store.create('/k', { v: 2 }), 'AlreadyExists', 409);
      expect((await store.get('/k'))?.value).toEqual({ v: 1 });
      expect(store.revision).toBe(at(1));
    });

    it('updates with compare-and-set, keeping createRevision', async () => {
      await store.create('/k', { v: 1 });
      await store.create('/other', {});
      const updated = await store.update('/k', { v: 2 }, at(1));
      expect(updated).toMatchObject({ value: { v: 2 }, createRevision: at(1), modRevision: at(3) });
      await expectError(store.update('/k', { v: 3 }, at(1)), 'Conflict', 409);
      expect((await store.update('/k', { v: 4 })).modRevision).toBe(at(4));
      expect((await store.get('/k'))?.value).toEqual({ v: 4 });
    });

    it('reports NotFound for update or delete of a missing key', async () => {
      await expectError(store.update('/missing', {}), 'NotFound', 404);
      await expectError(store.delete('/missing'), 'NotFound', 404);
      await expectError(store.update('/missing', {}, 0), 'NotFound', 404);
      expect(store.revision).toBe(base);
    });

    it('deletes with compare-and-set', async () => {
      await store.create('/k', { v: 1 });
      await store.update('/k', { v: 2 });
      await expectError(store.delete('/k', at(1)), 'Conflict', 409);
      const deleted = await store.delete('/k', at(2));
      expect(deleted).toMatchObject({ key: '/k', value: { v: 2 }, createRevision: at(1), modRevision: at(3) });
      expect(await store.get('/k')).toBeUndefined();
      const again = await store.create('/k', { v: 3 });
      expect(again).toMatchObject({ createRevision: at(4), modRevision: at(4) });
    });

    it('freezes what it stores', async () => {
      const kv = await store.create('/k', { spec: { containers: [{ name: 'a' }] } });
      const got = (await store.get('/k'))!;
      for (const v of [kv.value, got.value]) {
        expect(Object.isFrozen(v)).toBe(true);
        const spec = (v as { spec: { containers: object[] } }).spec;
        expect(Object.isFrozen(spec.containers[0])).toBe(true);
        expect(() => ((v as { x?: number }).x = 1)).toThrow(TypeError);
      }
    });

    it('gives concurrent creates distinct, consecutive revisions', async () => {
      const created = await Promise.all(Array.from({ length: 100 }, (_, i) => store.create(`/c/${i}`, { i })));
      const revisions = created.map((kv) => kv.modRevision).sort((a, b) => a - b);
      expect(revisions).toEqual(Array.from({ length: 100 }, (_, i) => at(i + 1)));
      expect(store.revision).toBe(at(100));
      expect((await store.list('/c/')).items).toHaveLength(100);
    });

    it('watches from a revision: the later events, then live ones', async () => {
      await store.create('/a', {});
      await store.create('/b', {});
      await store.update('/a', { v: 2 });
      const events = firstEvents(store.watch('/', at(1)), 4);
      await store.delete('/b');
      await store.create('/c', {});
      expect(await events).toEqual([
        ['put', '/b', at(2)],
        ['put', '/a', at(3)],
        ['delete', '/b', at(4)],
        ['put', '/c', at(5)],
      ]);
    });

    it('replays, then follows live writes, with prevKv', async () => {
      await store.create('/a', { v: 1 });
      const feed = firstValueFrom(store.watch('/', base).pipe(take(3), toArray()));
      await store.update('/a', { v: 2 });
      await store.delete('/a');
      const [created, updated, deleted] = await feed;
      expect(created).toMatchObject({ type: 'put', kv: { modRevision: at(1) } });
      expect(created!.prevKv).toBeUndefined();
      expect(updated).toMatchObject({ type: 'put', kv: { value: { v: 2 }, modRevision: at(2) }, prevKv: { value: { v: 1 }, modRevision: at(1) } });
      expect(deleted).toMatchObject({ type: 'delete', kv: { key: '/a', value: { v: 2 }, createRevision: at(1), modRevision: at(3) }, prevKv: { modRevision: at(2) } });
    });

    it('filters a watch by prefix', async () => {
      const feed = firstEvents(store.watch('/pods/', base), 2);
      await store.create('/nodes/n', {});
      await store.create('/pods/p', {});
      await store.create('/podsx/q', {});
      await store.update('/pods/p', { v: 2 });
      expect(await feed).toEqual([['put', '/pods/p', at(2)], ['put', '/pods/p', at(4)]]);
    });

    it('resumes a watch from a list resourceVersion without gaps or repeats', async () => {
      await store.create('/p/a', {});
      await store.create('/p/b', {});
      const listed = await store.list('/p/');
      await store.create('/p/c', {});
      const feed = firstEvents(store.watch('/p/', listed.revision), 2);
      await store.delete('/p/a');
      expect(listed.revision).toBe(at(2));
      expect(await feed).toEqual([['put', '/p/c', at(3)], ['delete', '/p/a', at(4)]]);
    });

    it('expires watches older than the bounded history window', async () => {
      const small = await open({ historySize: 3 });
      const from = small.revision;
      for (let i = 0; i < 6; i++) await small.create(`/k/${i}`, {});
      const err = await watchError(small.watch('/', from + 1));
      expect(err).toBeInstanceOf(KedgeError);
      expect((err as KedgeError).code).toBe('Expired');
      expect((err as KedgeError).httpStatus).toBe(410);
      expect(await firstEvents(small.watch('/', from + 3), 3)).toEqual([
        ['put', '/k/3', from + 4],
        ['put', '/k/4', from + 5],
        ['put', '/k/5', from + 6],
      ]);
    });

    it('expires watches at or before a compacted revision', async () => {
      for (let i = 0; i < 5; i++) await store.create(`/k/${i}`, {});
      await store.compact(at(3));
      expect(store.compactedRevision).toBe(at(3));
      expect(((await watchError(store.watch('/', at(2)))) as KedgeError).code).toBe('Expired');
      expect(await firstEvents(store.watch('/', at(3)), 2)).toEqual([['put', '/k/3', at(4)], ['put', '/k/4', at(5)]]);
    });
  });
}
