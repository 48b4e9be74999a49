import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableStore, type DurableStoreOptions } from '../../cloud/store/durable-store.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { KedgeError } from '../../shared/errors.js';
import { storeContract } from './store.contract.js';

storeContract('MemoryStore', async (options) => ({ store: new MemoryStore(options), cleanup: async () => {} }));

it('starts an embedded store at revision 0 (the contract counts from where a store opens)', () => {
  expect(new MemoryStore().revision).toBe(0);
});

storeContract('DurableStore', async (options) => {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-store-'));
  const store = await DurableStore.open(dir, options);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('DurableStore on disk', () => {
  const dirs: string[] = [];
  const open: DurableStore[] = [];

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-durable-'));
    dirs.push(dir);
    return dir;
  }

  async function openStore(dir: string, options?: DurableStoreOptions): Promise<DurableStore> {
    const store = await DurableStore.open(dir, options);
    open.push(store);
    return store;
  }

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('restores entries and revision on reopen; older watches expire', async () => {
    const dir = await tempDir();
    const first = await openStore(dir);
    expect(first.revision).toBe(0);
    await first.create('/a', { v: 1 });
    await first.create('/b', { v: 1 });
    await first.update('/a', { v: 2 });
    await first.delete('/b');
    await first.close();

    const second = await openStore(dir);
    expect(second.revision).toBe(4);
    expect((await second.list('/')).items).toEqual([{ key: '/a', value: { v: 2 }, createRevision: 1, modRevision: 3 }]);
    const err = await new Promise((resolve) => second.watch('/', 2).subscribe({ error: resolve }));
    expect((err as KedgeError).code).toBe('Expired');
    expect((await second.create('/c', {})).modRevision).toBe(5);
  });

  it('cuts off a torn tail left by a crash', async () => {
    const dir = await tempDir();
    const first = await openStore(dir);
    for (let i = 0; i < 3; i++) await first.create(`/k/${i}`, { i });
    await first.close();
    const [log] = await readdir(dir);
    await appendFile(join(dir, log!), '1234abcd {"op":"put","key":"/k/3","val');

    const second = await openStore(dir);
    expect(second.revision).toBe(3);
    expect((await second.list('/k/')).items.map((kv) => kv.key)).toEqual(['/k/0', '/k/1', '/k/2']);
    await second.create('/k/3', { i: 3 });
    await second.close();

    const third = await openStore(dir);
    expect(third.revision).toBe(4);
    expect((await third.get('/k/3'))?.value).toEqual({ i: 3 });
  });

  it('refuses a log corrupted before its last record', async () => {
    const dir = await tempDir();
    const first = await openStore(dir);
    for (let i = 0; i < 3; i++) await first.create(`/k/${i}`, { i });
    await first.close();
    const [log] = await readdir(dir);
    const text = await readFile(join(dir, log!), 'utf8');
    await writeFile(join(dir, log!), text.replace('"/k/1"', '"/k/X"'));
    const err: unknown = await DurableStore.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KedgeError);
    expect((err as KedgeError).code).toBe('Internal');
  });

  it('refuses a value JSON cannot hold, leaving the store unchanged', async () => {
    const store = await openStore(await tempDir());
    await store.create('/k', { v: 1 });
    const err: unknown = await store.update('/k', { big: 1n }).catch((e: unknown) => e);
    expect((err as KedgeError).code).toBe('Invalid');
    expect(store.revision).toBe(1);
    expect((await store.get('/k'))?.value).toEqual({ v: 1 });
  });

  it('snapshots as the log grows, and recovers from snapshot plus log, again and again', async () => {
    const dir = await tempDir();
    const options = { snapshotMinBytes: 16 * 1024, snapshotRatio: 1 };
    const expected = new Map<string, { round: number; i: number }>();
    let round = 0;
    const writeRounds = async (store: DurableStore, rounds: number): Promise<void> => {
      for (const end = round + rounds; round < end; round++) {
        await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            const key = `/pods/p${i}`;
            const value = { round, i, pad: 'x'.repeat(200) };
            if (expected.has(key) && (round + i) % 7 === 0) {
              await store.delete(key);
              expected.delete(key);
            } else {
              await (expected.has(key) ? store.update(key, value) : store.create(key, value));
              expected.set(key, { round, i });
            }
          }),
        );
      }
    };
    const contents = async (store: DurableStore): Promise<Map<string, unknown>> =>
      new Map((await store.list('/pods/')).items.map((kv) => [kv.key, { round: (kv.value as { round: number }).round, i: (kv.value as { i: number }).i }]));

    for (let restart = 0; restart < 3; restart++) {
      const store = await openStore(dir, options);
      expect(await contents(store)).toEqual(expected);
      await writeRounds(store, 20);
      const revision = store.revision;
      await store.close();
      expect(store.stats.snapshots).toBeGreaterThan(2);
      expect(store.stats.commits).toBeLessThan(1000);
      const files = await readdir(dir);
      expect(files).toContain('snapshot.log');
      expect(files.filter((f) => f.startsWith('wal-'))).toHaveLength(1);

      await writeFile(join(dir, 'snapshot.log.tmp'), 'half a snapshot'); // a crash mid-snapshot
      const reopened = await openStore(dir);
      expect(reopened.revision).toBe(revision);
      expect(await readdir(dir)).not.toContain('snapshot.log.tmp');
      expect(await contents(reopened)).toEqual(expected);
      await reopened.close();
    }
  });
});
