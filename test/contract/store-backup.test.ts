import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backupBytes, checkBackup, restoreBackup } from '../../cloud/store/backup.js';
import { DurableStore } from '../../cloud/store/durable-store.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { Store } from '../../cloud/store/store.js';
import { isKedgeError } from '../../shared/errors.js';

const now = new Date('2026-12-01T12:00:00Z');

async function fill(store: Store): Promise<void> {
  await store.create('/pods/default/a', { name: 'a', n: 1 });
  await store.create('/pods/default/b', { name: 'b' });
  await store.update('/pods/default/a', { name: 'a', n: 2 });
  await store.create('/pods/default/gone', {});
  await store.delete('/pods/default/gone');
}

describe('store backup and restore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-backup-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['memory', (): Promise<Store> => Promise.resolve(new MemoryStore())],
    ['durable', (): Promise<Store> => DurableStore.open(join(dir, 'source'))],
  ])('restores a %s store into a durable one with every revision as it was; writes go on after it', async (_kind, open) => {
    const source = await open();
    await fill(source);
    const bytes = await backupBytes(source);
    const before = await source.list('');
    await source.close();
    expect(checkBackup(bytes, 'b')).toEqual({ revision: 5, count: 2 });

    const storeDir = join(dir, 'store');
    await writeFile(join(dir, 'b'), bytes);
    expect(await restoreBackup(join(dir, 'b'), storeDir, now)).toEqual({ revision: 5, count: 2 });
    const restored = await DurableStore.open(storeDir);
    try {
      expect(await restored.list('')).toEqual(before);
      expect(restored.revision).toBe(5);
      expect((await restored.create('/pods/default/c', {})).modRevision).toBe(6);
    } finally {
      await restored.close();
    }
  });

  it('keeps the store it replaces beside it, renamed', async () => {
    const storeDir = join(dir, 'store');
    const old = await DurableStore.open(storeDir);
    await old.create('/pods/default/old', {});
    await old.close();
    await writeFile(join(dir, 'b'), await backupBytes(new MemoryStore()));
    const { kept } = await restoreBackup(join(dir, 'b'), storeDir, now);
    expect(kept).toBe(`${storeDir}.before-restore-2026-12-01T12-00-00-000Z`);
    expect((await readdir(dir)).sort()).toEqual(['b', 'store', 'store.before-restore-2026-12-01T12-00-00-000Z']);
    const restored = await DurableStore.open(storeDir);
    expect((await restored.list('')).items).toEqual([]);
    await restored.close();
  });

  it('refuses a file that is not a whole, intact backup, saying what is wrong', async () => {
    const source = new MemoryStore();
    await fill(source);
    const good = await backupBytes(source);
    const bad: [string, Buffer, RegExp][] = [
      ['not a backup', Buffer.from('hello\n'), /is not a kedge backup/],
      ['cut short', good.subarray(0, good.length - 5), /is (incomplete|damaged)/],
      ['an entry missing', good.subarray(0, good.indexOf(10, good.indexOf(10) + 1) + 1), /incomplete: 1 intact entries of 2/],
      ['a byte changed', Buffer.from(good.toString().replace('"n":2', '"n":3')), /is (damaged|incomplete)/],
    ];
    for (const [what, bytes, message] of bad) {
      let err: unknown;
      try {
        checkBackup(bytes, 'f');
      } catch (e) {
        err = e;
      }
      expect(isKedgeError(err, 'Invalid'), what).toBe(true);
      expect((err as Error).message, what).toMatch(message);
    }
    await writeFile(join(dir, 'bad'), 'hello\n');
    await expect(restoreBackup(join(dir, 'bad'), join(dir, 'store'), now)).rejects.toThrow(/is not a kedge backup/);
    await expect(restoreBackup(join(dir, 'none'), join(dir, 'store'), now)).rejects.toThrow(/cannot read .*none: no such file/);
    expect(await readdir(dir)).toEqual(['bad']); // no store made, nothing moved
  });
});
