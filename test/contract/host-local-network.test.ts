import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ipamDir } from '../../edge/network/cni/disk-ipam-store.js';
import { openHostLocalPlugin } from '../../edge/network/cni/plugins.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { networkPluginContract } from './network-plugin.contract.js';

networkPluginContract('host-local IPAM in the data dir (real edges)', async (deps) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'kedge-cni-'));
  const open = () => openHostLocalPlugin({ ...deps, dataDir, logger: silentLogger });
  return { plugin: await open(), reopen: open, cleanup: () => rm(dataDir, { recursive: true, force: true }) };
});

describe('host-local IPAM files', () => {
  let dataDir: string;
  const ref = (containerId: string) => ({ containerId, podUid: 'u', namespace: 'default', name: 'p' });
  const open = () => openHostLocalPlugin({ nodeName: 'edge-1', podCIDR: () => '10.1.0.0/24', clock: new FakeClock(), dataDir, logger: silentLogger });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kedge-cni-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps one owner-only file per address holding the container id, and last_reserved_ip.0', async () => {
    const plugin = await open();
    await plugin.add(ref('sandbox-a'));
    await plugin.add(ref('sandbox-b'));
    await plugin.del(ref('sandbox-a'));
    const dir = ipamDir(dataDir);
    expect(dir).toBe(join(dataDir, 'cni', 'networks', 'kedge'));
    expect((await readdir(dir)).sort()).toEqual(['10.1.0.3', 'last_reserved_ip.0']);
    expect(await readFile(join(dir, '10.1.0.3'), 'utf8')).toBe('sandbox-b');
    expect(await readFile(join(dir, 'last_reserved_ip.0'), 'utf8')).toBe('10.1.0.3');
    expect((await stat(join(dir, '10.1.0.3'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('keeps its reservations and its round-robin place across a restart', async () => {
    const plugin = await open();
    await plugin.add(ref('a'));
    await plugin.add(ref('b'));
    await plugin.del(ref('a'));
    const again = await open();
    expect((await again.check(ref('b'))).ip).toBe('10.1.0.3');
    expect((await again.add(ref('c'))).ip).toBe('10.1.0.4');
  });

  it('reads damaged state defensively: junk names are left alone, a file without a container id is released by GC', async () => {
    const dir = ipamDir(dataDir);
    await (await open()).add(ref('a'));
    await writeFile(join(dir, '10.1.0.7'), '\u0000\u0000 not an id');
    await writeFile(join(dir, 'README'), 'hello');
    await writeFile(join(dir, '10.1.0.8.1a2b3c4d.tmp'), 'half');
    await writeFile(join(dir, 'last_reserved_ip.0'), 'garbage');
    const plugin = await open();
    expect((await plugin.add(ref('b'))).ip).toBe('10.1.0.3'); // from the start: the last reserved address was unreadable
    expect(await plugin.gc([{ containerId: 'a', ip: '10.1.0.2' }, { containerId: 'b', ip: '10.1.0.3' }])).toEqual(['10.1.0.7']);
    expect((await readdir(dir)).sort()).toEqual(['10.1.0.2', '10.1.0.3', 'README', 'last_reserved_ip.0']);
  });
});
