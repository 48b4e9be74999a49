import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backupBytes, restoreBackup } from '../../cloud/store/backup.js';
import { DurableStore } from '../../cloud/store/durable-store.js';
import type { EtcdStore } from '../../cloud/store/etcd/etcd-store.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import { restoreIntoStore } from '../../cloud/store/restore-into-store.js';
import { isKedgeError } from '../../shared/errors.js';
import type { EtcdCluster } from '../../sim/etcd/etcd-cluster.js';
import { openTestStore, startTestEtcd } from '../support/etcd.js';

describe('backup and restore with the etcd store', () => {
  let etcd: EtcdCluster;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    etcd = await startTestEtcd();
  });
  afterAll(async () => {
    await etcd?.close();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function etcdStore(): Promise<EtcdStore> {
    const store = await openTestStore(etcd);
    closers.push(() => store.close());
    return store;
  }

  it('restores a backup into an empty prefix: same keys and values, new revisions in the order of the old ones', async () => {
    const source = new MemoryStore();
    await source.create('/pods/default/b', { uid: 'b' });
    await source.create('/pods/default/a', { uid: 'a', n: 1 });
    await source.update('/pods/default/b', { uid: 'b', n: 2 });
    const bytes = await backupBytes(source);

    const target = await etcdStore();
    const restored = await restoreIntoStore(bytes, 'the backup', target);
    expect(restored).toMatchObject({ revision: 3, count: 2, lastRevision: target.revision });
    const items = (await target.list('')).items;
    expect(items.map((kv) => [kv.key, kv.value])).toEqual([['/pods/default/a', { uid: 'a', n: 1 }], ['/pods/default/b', { uid: 'b', n: 2 }]]);
    const [a, b] = items;
    expect(a!.modRevision).toBeLessThan(b!.modRevision); // a was written before b's update
  });

  it('refuses to restore into a prefix that holds entries', async () => {
    const source = new MemoryStore();
    await source.create('/k', {});
    const target = await etcdStore();
    await target.create('/already', {});
    const err = await restoreIntoStore(await backupBytes(source), 'the backup', target).catch((e: unknown) => e);
    expect(isKedgeError(err, 'Conflict')).toBe(true);
    expect((await target.list('')).items.map((kv) => kv.key)).toEqual(['/already']);
  });

  it('backs etcd up in the kedge format, which restores into the durable store with its revisions', async () => {
    const source = await etcdStore();
    await source.create('/pods/default/a', { n: 1 });
    await source.create('/pods/default/b', { n: 2 });
    const bytes = await backupBytes(source);
    const dir = await mkdtemp(join(tmpdir(), 'kedge-etcd-backup-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'backup');
    await writeFile(file, bytes);
    await restoreBackup(file, join(dir, 'store'), new Date());
    const durable = await DurableStore.open(join(dir, 'store'));
    closers.push(() => durable.close());
    expect(durable.revision).toBe(source.revision);
    expect((await durable.list('')).items).toEqual((await source.list('')).items);
  });
});
