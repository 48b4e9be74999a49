import { describe, expect, it } from 'vitest';
import { GatedStore } from '../../cloud/store/gated-store.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { WatchEvent } from '../../cloud/store/store.js';
import { isKedgeError } from '../../shared/errors.js';
import { storeContract } from './store.contract.js';

storeContract('GatedStore (up) over MemoryStore', async (options) => ({ store: new GatedStore(new MemoryStore(options)), cleanup: async () => {} }));

const DOWN = 'the store is down (stopped with kedge component stop store)';

async function expectUnavailable(call: Promise<unknown>): Promise<void> {
  const err = await call.then(() => undefined, (e: unknown) => e);
  expect(isKedgeError(err, 'Unavailable')).toBe(true);
  expect((err as Error).message).toBe(DOWN);
}

/** What a watch delivers until it ends, and how it ended. */
function record(store: GatedStore, prefix: string, after: number) {
  const seen: string[] = [];
  const end: { error?: unknown; complete?: boolean } = {};
  const sub = store.watch(prefix, after).subscribe({
    next: (e: WatchEvent) => seen.push(`${e.type} ${e.kv.key}@${e.kv.modRevision}`),
    error: (error: unknown) => (end.error = error),
    complete: () => (end.complete = true),
  });
  return { seen, end, sub };
}

describe('GatedStore', () => {
  it('fails every call with Unavailable while down, changing nothing', async () => {
    const store = new GatedStore(new MemoryStore());
    await store.create('/pods/a', { v: 1 });
    store.down(DOWN);
    expect(store.isUp).toBe(false);
    await expectUnavailable(store.get('/pods/a'));
    await expectUnavailable(store.list('/pods/'));
    await expectUnavailable(store.create('/pods/b', { v: 1 }));
    await expectUnavailable(store.update('/pods/a', { v: 2 }));
    await expectUnavailable(store.delete('/pods/a'));
    await expectUnavailable(store.compact(1));
    const watch = record(store, '/pods/', 0);
    expect(isKedgeError(watch.end.error, 'Unavailable')).toBe(true);
    expect(store.revision).toBe(1);
  });

  it('ends open watches with Unavailable when it goes down', async () => {
    const store = new GatedStore(new MemoryStore());
    const watch = record(store, '/pods/', 0);
    await store.create('/pods/a', { v: 1 });
    store.down(DOWN);
    expect(watch.seen).toEqual(['put /pods/a@1']);
    expect(isKedgeError(watch.end.error, 'Unavailable')).toBe(true);
    expect((watch.end.error as Error).message).toBe(DOWN);
    expect(watch.sub.closed).toBe(true);
  });

  it('loses nothing: once up, everything is there and a watch resumes where it ended', async () => {
    const store = new GatedStore(new MemoryStore());
    await store.create('/pods/a', { v: 1 });
    const first = record(store, '/pods/', 0);
    await store.update('/pods/a', { v: 2 });
    store.down(DOWN);
    store.up();
    expect(store.isUp).toBe(true);
    expect((await store.get('/pods/a'))?.value).toEqual({ v: 2 });
    await store.create('/pods/b', { v: 1 });
    const resumed = record(store, '/pods/', 2);
    await store.delete('/pods/a');
    expect(first.seen).toEqual(['put /pods/a@1', 'put /pods/a@2']);
    expect(resumed.seen).toEqual(['put /pods/b@3', 'delete /pods/a@4']);
    expect(resumed.end).toEqual({});
    expect((await store.list('/pods/')).items.map((kv) => kv.key)).toEqual(['/pods/b']);
    resumed.sub.unsubscribe();
  });

  it('forgets a watch its subscriber left, so going down touches only the open ones', async () => {
    const store = new GatedStore(new MemoryStore());
    const left = record(store, '/', 0);
    left.sub.unsubscribe();
    store.down(DOWN);
    expect(left.end).toEqual({});
  });

  it('answers a call that arrives after close with 503, without reaching the closed store', async () => {
    const inner = new MemoryStore();
    const store = new GatedStore(inner);
    await store.close();
    inner.get = () => Promise.reject(new Error('Tried to call a KV method on etcd3, but the client was already closed'));
    await expect(store.get('/pods/a')).rejects.toMatchObject({ code: 'Unavailable', message: 'the store is closed (the cloud is stopping)' });
  });
});
