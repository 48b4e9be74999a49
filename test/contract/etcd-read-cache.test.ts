import { Etcd3, type Watcher } from 'etcd3';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock, realClock } from '../../shared/clock.js';
import { EtcdReadCache, MISS, sharedCalls } from '../../cloud/store/etcd/etcd-read-cache.js';
import { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import { etcdClientOptions } from '../../cloud/store/etcd/open-etcd-store.js';
import type { KeyValue } from '../../cloud/store/store.js';
import { etcdForFile, freshPrefix } from '../support/etcd.js';

const kv = (key: string, modRevision: number, value: unknown = { v: modRevision }): KeyValue => ({ key, value, createRevision: modRevision, modRevision });

describe('EtcdReadCache', () => {
  it('answers a read once the watch has shown its revision, and MISS while unloaded, after a reset, or past its wait', async () => {
    const cache = new EtcdReadCache(20, realClock);
    expect(await cache.read('/a', 1)).toBe(MISS);
    cache.load([kv('/a', 3)], 5);
    expect(await cache.read('/a', 5)).toEqual(kv('/a', 3));
    const later = cache.read('/a', 7);
    cache.apply({ type: 'put', kv: kv('/a', 6) });
    cache.apply({ type: 'delete', kv: kv('/b', 7) });
    expect(await later).toEqual(kv('/a', 6));
    expect(await cache.read('/a', 9)).toBe(MISS); // the watch never got there within 20 ms
    const pending = cache.read('/a', 10);
    cache.reset();
    expect(await pending).toBe(MISS);
    expect(await cache.read('/a', 1)).toBe(MISS);
  });

  it('drops events the loaded list already holds', async () => {
    const cache = new EtcdReadCache(20, realClock);
    cache.load([kv('/a', 4, 'listed')], 4);
    cache.apply({ type: 'put', kv: kv('/a', 3, 'older') });
    expect((await cache.read('/a', 4)) as KeyValue).toMatchObject({ value: 'listed' });
  });
});

describe("EtcdReadCache behind on its own store's writes", () => {
  /** Whether `p` is still unsettled once the microtasks queued now have run. */
  const pending = async (p: Promise<unknown>): Promise<boolean> => {
    const marker = Symbol('pending');
    return (await Promise.race([p, Promise.resolve().then(() => Promise.resolve(marker))])) === marker;
  };
  /** A cache waiting 100 ms (3 s behind its own writes), loaded at revision 5, its store's last write at `written`. */
  const cacheAt5 = (written: number): { clock: FakeClock; cache: EtcdReadCache } => {
    const clock = new FakeClock();
    const cache = new EtcdReadCache(100, clock, 3_000);
    cache.load([kv('/a', 3)], 5);
    cache.wrote(written);
    return { clock, cache };
  };

  it('waits past the short wait while the watch has yet to show a write the store made, up to the long one', async () => {
    const { clock, cache } = cacheAt5(8);
    const read = cache.read('/a', 8);
    await clock.advance(1_000);
    expect(await pending(read)).toBe(true); // the watch is only late: nothing is read from etcd
    cache.apply({ type: 'put', kv: kv('/a', 8) });
    expect(await read).toEqual(kv('/a', 8));

    cache.wrote(9);
    const late = cache.read('/a', 9);
    await clock.advance(3_100);
    expect(await late).toBe(MISS); // past the long wait
  });

  it("keeps the short wait when etcd moved past the last write the store saw (a write outside its prefix, or another client's)", async () => {
    const { clock, cache } = cacheAt5(5);
    const read = cache.read('/a', 7);
    await clock.advance(100);
    expect(await read).toBe(MISS);
  });
});

describe('sharedCalls', () => {
  it('gives callers arriving while a call waits to be sent one call, sent after each of them asked', async () => {
    const sent: Array<(n: number) => void> = [];
    const shared = sharedCalls(() => new Promise<number>((resolve) => sent.push(resolve)));
    const first = shared();
    await Promise.resolve();
    await Promise.resolve();
    expect(sent).toHaveLength(1);
    // The first call is in flight: these two ask after it was sent, so they wait for the next one, together.
    const [second, third] = [shared(), shared()];
    sent[0]!(1);
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(2);
    sent[1]!(2);
    expect([await second, await third]).toEqual([2, 2]);
  });
});

describe('sharedCalls when a call fails', () => {
  it('fails those waiting for the next call with it, at once; a later caller sends a new one', async () => {
    const sent: Array<{ resolve: (n: number) => void; reject: (e: Error) => void }> = [];
    const shared = sharedCalls(() => new Promise<number>((resolve, reject) => sent.push({ resolve, reject })));
    const first = shared();
    await new Promise((r) => setImmediate(r));
    const waiting = shared();
    sent[0]!.reject(new Error('etcd: no quorum'));
    await expect(first).rejects.toThrow('no quorum');
    await expect(waiting).rejects.toThrow('no quorum');
    expect(sent).toHaveLength(1);
    const later = shared();
    await new Promise((r) => setImmediate(r));
    sent[1]!.resolve(7);
    expect(await later).toBe(7);
  });
});

describe('sharedCalls after a failure nobody waited on', () => {
  it('sends a fresh call for a caller arriving later (a store that reconnected does not see the old failure)', async () => {
    const sent: Array<{ resolve: (n: number) => void; reject: (e: Error) => void }> = [];
    const shared = sharedCalls(() => new Promise<number>((resolve, reject) => sent.push({ resolve, reject })));
    const first = shared();
    sent[0]!.reject(new Error('etcd: client closed'));
    await expect(first).rejects.toThrow('client closed');
    const later = shared();
    await new Promise((r) => setImmediate(r));
    expect(sent).toHaveLength(2);
    sent[1]!.resolve(9);
    expect(await later).toBe(9);
  });
});

describe('gets through the read cache of a real etcd', () => {
  const etcd = etcdForFile();

  /** A store whose client counts its range calls, and hands on what its watches receive `lag.ms` late. */
  async function countingStore(prefix: string, lag = { ms: 0 }, cacheWaitMs?: number): Promise<{ store: EtcdStore; ranges: () => number }> {
    const options = await etcdClientOptions({ endpoints: etcd.cluster().endpoints });
    let ranges = 0;
    const store = await EtcdStore.open(() => {
      const client = new Etcd3(options);
      const range = client.kv.range.bind(client.kv);
      client.kv.range = (...args: Parameters<typeof range>) => {
        ranges++;
        return range(...args);
      };
      const watch = client.watch.bind(client);
      client.watch = () => {
        const builder = watch();
        const make = builder.watcher.bind(builder);
        builder.watcher = () => {
          const watcher = make();
          const on = watcher.on.bind(watcher) as (event: string, listener: (...args: unknown[]) => void) => Watcher;
          watcher.on = ((event: string, listener: (...args: unknown[]) => void) =>
            on(event, event === 'data' ? (...args) => (lag.ms > 0 ? realClock.setTimer(lag.ms, () => listener(...args)) : listener(...args)) : listener)) as Watcher['on'];
          return watcher;
        };
        return builder;
      };
      return client;
    }, { prefix, cacheWaitMs });
    etcd.track(store);
    return { store, ranges: () => ranges };
  }

  it('a get sees at once what another client wrote, put or deleted', async () => {
    const prefix = freshPrefix();
    const { store: writer } = await countingStore(prefix);
    const { store: reader } = await countingStore(prefix);
    for (let i = 0; i < 20; i++) {
      const created = await writer.create(`/k${i}`, { i });
      expect((await reader.get(`/k${i}`))?.modRevision).toBe(created.modRevision);
      const updated = await writer.update(`/k${i}`, { i, again: true }, created.modRevision);
      expect(await reader.get(`/k${i}`)).toMatchObject({ value: { i, again: true }, modRevision: updated.modRevision });
      await writer.delete(`/k${i}`);
      expect(await reader.get(`/k${i}`)).toBeUndefined();
    }
  });

  it("a get right after another client's write sees it though the cache's watch lags: it waits for the watch, or reads etcd", async () => {
    const prefix = freshPrefix();
    const { store: writer } = await countingStore(prefix);
    const lag = { ms: 0 };
    const { store: patient, ranges: patientRanges } = await countingStore(prefix, lag, 10_000);
    const { store: hasty, ranges: hastyRanges } = await countingStore(prefix, lag, 20);
    let written = await writer.create('/k', { v: 0 });
    await vi.waitFor(() => expect([patient.readCacheLoaded, hasty.readCacheLoaded]).toEqual([true, true]), { timeout: 10_000 });
    lag.ms = 200;
    for (let v = 1; v <= 3; v++) {
      written = await writer.update('/k', { v }, written.modRevision);
      const [patientBefore, hastyBefore] = [patientRanges(), hastyRanges()];
      // The cache holds /k at its previous revision until the lagging event arrives.
      expect(await hasty.get('/k')).toMatchObject({ value: { v }, modRevision: written.modRevision });
      expect(await patient.get('/k')).toMatchObject({ value: { v }, modRevision: written.modRevision });
      expect(patientRanges() - patientBefore).toBe(1); // etcd's revision only: the value came from memory, once the watch showed it
      expect(hastyRanges() - hastyBefore).toBe(2); // its wait ran out: it read the key from etcd
    }
    await writer.delete('/k');
    expect(await patient.get('/k')).toBeUndefined();
    expect(await hasty.get('/k')).toBeUndefined();
  });

  it('concurrent gets share one read of the revision and are answered from memory', async () => {
    const prefix = freshPrefix();
    const { store, ranges } = await countingStore(prefix);
    for (let i = 0; i < 50; i++) await store.create(`/k${i}`, { i });
    await vi.waitFor(() => expect(store.readCacheLoaded).toBe(true), { timeout: 10_000 });
    const before = ranges();
    const got = await Promise.all(Array.from({ length: 50 }, (_, i) => store.get(`/k${i}`)));
    expect(got.map((g) => (g?.value as { i: number }).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(ranges() - before).toBeLessThanOrEqual(2);
  });
});
