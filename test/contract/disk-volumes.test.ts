import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { DiskVolumeHost } from '../../edge/volumes/disk-volume-host.js';
import { FakeClock } from '../../shared/clock.js';
import { volumePluginsContract, type VolumeFile } from './volume-plugins.contract.js';
import { testNetwork } from '../support/test-network.js';

/** The files under `dir` as a reader of the volume sees them (through `..data`), by path. */
async function filesUnder(dir: string, prefix = ''): Promise<Record<string, VolumeFile>> {
  const out: Record<string, VolumeFile> = {};
  const entries = await readdir(join(dir, prefix)).catch(() => [] as string[]);
  for (const name of entries.filter((n) => !n.startsWith('..'))) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const s = await stat(join(dir, rel));
    if (s.isDirectory()) Object.assign(out, await filesUnder(dir, rel));
    else out[rel] = { text: await readFile(join(dir, rel), 'utf8'), mode: s.mode & 0o7777 };
  }
  return out;
}

async function kind(path: string): Promise<'dir' | 'file' | 'missing'> {
  const s = await stat(path).catch(() => undefined);
  return !s ? 'missing' : s.isDirectory() ? 'dir' : 'file';
}

volumePluginsContract('DiskVolumeHost with the process runtime', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kedge-volumes-'));
  const hostRoot = join(dataDir, 'host');
  const clock = new FakeClock(Date.UTC(2026, 11, 2, 3, 4, 5));
  const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir, clock });
  return {
    host: new DiskVolumeHost({ dataDir, hostRoot, clock }),
    runtime,
    handler: 'process',
    dataDir,
    hostRoot,
    files: (dir) => filesUnder(dir),
    version: async (dir) => (await readlink(join(dir, '..data')).catch(() => '')) ,
    seedHost: async (path, what) => {
      const real = join(hostRoot, path);
      await mkdir(what === 'dir' ? real : dirname(real), { recursive: true });
      if (what === 'file') await writeFile(real, '');
    },
    hostKind: (path) => kind(join(hostRoot, path)),
    readInContainer: async (id, path) => {
      const record = (await runtime.listContainers()).find((c) => c.id === id)!;
      const root = join(dataDir, 'pods', record.podUid, 'containers', record.name, id, 'root');
      return readFile(join(root, path), 'utf8');
    },
    cleanup: async () => {
      runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
