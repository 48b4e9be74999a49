import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { MemoryVolumeHost } from '../../edge/volumes/memory-volume-host.js';
import { FakeClock } from '../../shared/clock.js';
import { volumePluginsContract } from './volume-plugins.contract.js';
import { testNetwork } from '../support/test-network.js';

volumePluginsContract('MemoryVolumeHost with the sim runtime', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kedge-volumes-'));
  const hostRoot = join(dataDir, 'host');
  const host = new MemoryVolumeHost({ dataDir, hostRoot });
  const runtime = await SimRuntime.open({ network: testNetwork(), dataDir, clock: new FakeClock(), defaultStartMs: 0 });
  /** The payload file at a host path: the volume holding it is the nearest parent with files. */
  const fileAt = (path: string) => {
    for (let dir = dirname(path); dir.length > 1; dir = dirname(dir)) {
      const found = host.filesAt(dir).find((f) => f.path === relative(dir, path));
      if (found) return found.content.toString();
    }
    throw new Error(`no file at ${path}`);
  };
  return {
    host,
    runtime,
    handler: 'sim',
    dataDir,
    hostRoot,
    files: async (dir) => Object.fromEntries(host.filesAt(dir).map((f) => [f.path, { text: f.content.toString(), mode: f.mode }])),
    version: async (dir) => String(host.writesAt(dir)),
    seedHost: async (path, kind) => host.seedHostPath(path, kind),
    hostKind: async (path) => {
      const kind = host.kindAt(join(hostRoot, path));
      return kind === 'dir' || kind === 'file' ? kind : 'missing';
    },
    readInContainer: async (id, path) => {
      const mounts = (await runtime.listContainers()).find((c) => c.id === id)?.mounts ?? [];
      const mount = mounts.find((m) => path === m.containerPath || path.startsWith(`${m.containerPath}/`))!;
      return fileAt(join(mount.hostPath, relative(mount.containerPath, path)));
    },
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
});
