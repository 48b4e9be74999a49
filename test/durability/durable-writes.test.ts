import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadOrCreateCredentials, loadOrCreateServingCert, writeKubeconfig } from '../../cloud/apiserver/auth/credentials.js';
import { addApiToken, newTokenEntry } from '../../cloud/apiserver/auth/token-file.js';
import { backupBytes, restoreBackup } from '../../cloud/store/backup.js';
import { DurableStore } from '../../cloud/store/durable-store.js';
import { SNAPSHOT_FILE } from '../../cloud/store/snapshot.js';
import { loadIdentity } from '../../edge/identity.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { PROCESS_STATE_FILE, ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { SIM_STATE_FILE, SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { writePrivate } from '../../shared/private-file.js';
import { demoFilePath, writeDemoFile } from '../../sim/demo-file.js';
import { pod } from '../edge/fixtures.js';
import { testNetwork } from '../support/test-network.js';

/** What reached the disk, in order: "sync <path>" once an fsync (or fdatasync) of it returned, "rename <from> <to>" once a rename did. */
const journal = vi.hoisted(() => [] as string[]);

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const watched = (fh: FileHandle, path: string): FileHandle => {
    for (const method of ['sync', 'datasync'] as const) {
      const real = fh[method].bind(fh);
      Object.assign(fh, { [method]: async () => (await real(), void journal.push(`sync ${path}`)) });
    }
    return fh;
  };
  const open = async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => watched(await fs.open(...args), String(args[0]));
  const rename = async (from: string, to: string): Promise<void> => (await fs.rename(from, to), void journal.push(`rename ${from} ${to}`));
  return { ...fs, open, rename, default: { ...fs, open, rename } };
});

/**
 * Whether `path` was last written durably: its content fsynced under a temp name, renamed
 * over `path`, then its directory fsynced (so that the rename, too, survives a power cut).
 */
function writtenDurably(path: string): string[] {
  const at = journal.map((line) => line.startsWith('rename ') && line.endsWith(` ${path}`)).lastIndexOf(true);
  if (at < 0) return [`${path}: never put in place by a rename`];
  const tmp = journal[at]!.split(' ')[1]!;
  const problems: string[] = [];
  if (!journal.slice(0, at).includes(`sync ${tmp}`)) problems.push(`${path}: renamed from ${tmp} before that was fsynced`);
  if (!journal.slice(at + 1).includes(`sync ${dirname(path)}`)) problems.push(`${path}: its directory not fsynced after the rename`);
  return problems;
}

describe('every file a process acts on after a restart is written durably (temp file, fsync, rename, fsync of the directory)', () => {
  let dir: string;
  const clock = new FakeClock();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-durable-'));
    journal.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const writers: [string, (dir: string) => Promise<string[]>][] = [
    ['shared writePrivate', async (d) => (await writePrivate(join(d, 'f'), 'x'), [join(d, 'f')])],
    ['edge cache.json', async (d) => {
      const cache = await openLowdbCache(join(d, CACHE_FILE));
      cache.apply({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '1' }, pod('web', 'u1'));
      await cache.flush();
      return [join(d, CACHE_FILE)];
    }],
    ['edge identity.json', async (d) => (await loadIdentity(d, false, silentLogger), [join(d, 'identity.json')])],
    ['edge sim runtime state', async (d) => {
      const runtime = await SimRuntime.open({ network: testNetwork(), dataDir: d, clock, defaultStartMs: 0 });
      await runtime.runSandbox({ podUid: 'u1', name: 'web', namespace: 'default' });
      return [join(d, SIM_STATE_FILE)];
    }],
    ['edge process runtime state', async (d) => {
      const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: d, clock });
      await runtime.runSandbox({ podUid: 'u1', name: 'web', namespace: 'default' });
      return [join(d, PROCESS_STATE_FILE)];
    }],
    ['cloud tokens.json', async (d) => (await loadOrCreateCredentials(d), [join(d, 'tokens.json')])],
    ['cloud tokens.json after kedge token create', async (d) => {
      await loadOrCreateCredentials(d);
      journal.length = 0;
      await addApiToken(d, newTokenEntry('viewer'));
      return [join(d, 'tokens.json')];
    }],
    ['cloud kubeconfig', async (d) => [await writeKubeconfig(d, 'https://127.0.0.1:6443', 't')]],
    ['cloud certificates and keys', async (d) => {
      await loadOrCreateServingCert(d, ['127.0.0.1'], clock.now());
      return ['ca.crt', 'ca.key', 'tls.crt', 'tls.key'].map((f) => join(d, f));
    }],
    ['store snapshot', async (d) => {
      const store = await DurableStore.open(d, { snapshotMinBytes: 1, snapshotRatio: 0 });
      for (let i = 0; i < 5; i++) await store.create(`/k/${i}`, { i });
      await store.close();
      expect(store.stats.snapshots).toBeGreaterThan(0);
      return [join(d, SNAPSHOT_FILE)];
    }],
    ['store restored from a backup', async (d) => {
      const source = await DurableStore.open(join(d, 'source'));
      await source.create('/k/1', { i: 1 });
      await writeFile(join(d, 'backup'), await backupBytes(source));
      await source.close();
      await restoreBackup(join(d, 'backup'), join(d, 'store'), new Date(0));
      return [join(d, 'store', SNAPSHOT_FILE)];
    }],
    ['demo.json', async (d) => {
      await writeDemoFile(d, { pid: 1, controlUrl: 'http://127.0.0.1:1', apiUrl: 'http://127.0.0.1:2', brokerUrl: 'mqtt://127.0.0.1:3', nodes: [] });
      return [demoFilePath(d)];
    }],
  ];

  it.each(writers)('%s', async (_, write) => {
    const paths = await write(dir);
    expect(paths.flatMap(writtenDurably)).toEqual([]);
  });

  it('writes atomically but not durably, and keeps no previous copy, when told durable: false (hollow edges)', async () => {
    const path = join(dir, 'state.json');
    await writePrivate(path, 'one', { keepPrevious: true, durable: false });
    await writePrivate(path, 'two', { keepPrevious: true, durable: false });
    expect(await readFile(path, 'utf8')).toBe('two');
    expect(journal.filter((line) => line.startsWith('sync '))).toEqual([]);
    expect(journal.filter((line) => line.startsWith('rename ')).map((line) => line.split(' ')[2])).toEqual([path, path]); // each from a temp file
    await expect(readFile(`${path}.prev`, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps the version it replaced, when asked, as <file>.prev', async () => {
    const path = join(dir, 'state.json');
    await writePrivate(path, 'one', { keepPrevious: true });
    await writePrivate(path, 'two', { keepPrevious: true });
    await writePrivate(path, 'three', { keepPrevious: true });
    expect([await readFile(path, 'utf8'), await readFile(`${path}.prev`, 'utf8')]).toEqual(['three', 'two']);
  });
});
