import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskIpamStore, ipamDir } from '../../edge/network/cni/disk-ipam-store.js';
import { HostLocalPlugin } from '../../edge/network/cni/host-local-plugin.js';
import type { IpamStore } from '../../edge/network/cni/ipam-store.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

const ref = (containerId: string) => ({ containerId, podUid: `uid-${containerId}`, namespace: 'default', name: containerId });
const deps = (store: IpamStore) => ({ nodeName: 'edge-1', podCIDR: () => '10.1.0.0/24', clock: new FakeClock(), store });

/** A store whose reservations wait until the test lets them go (or fail them). */
function heldStore() {
  const waiting: { ip: string; settle: (err?: Error) => void }[] = [];
  const store: IpamStore = {
    load: async () => ({ reserved: new Map() }),
    reserve: (ip) => new Promise<void>((resolve, reject) => waiting.push({ ip, settle: (err) => (err ? reject(err) : resolve()) })),
    setLastReserved: async () => {},
    release: async () => {},
  };
  return { store, waiting };
}

describe('host-local IPAM under many sandboxes at once', () => {
  let dataDir: string | undefined;
  afterEach(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  it('hands out addresses without waiting for the files of the ones before (a rebooted edge starts its pods together)', async () => {
    const { store, waiting } = heldStore();
    const plugin = new HostLocalPlugin(deps(store));
    await plugin.start();
    const adds = ['a', 'b', 'c'].map((id) => plugin.add(ref(id)));
    await Promise.resolve();
    expect(waiting.map((w) => w.ip)).toEqual(['10.1.0.2', '10.1.0.3', '10.1.0.4']);
    for (const w of waiting) w.settle();
    expect((await Promise.all(adds)).map((a) => a.ip)).toEqual(['10.1.0.2', '10.1.0.3', '10.1.0.4']);
  });

  it('frees an address whose reservation could not be written', async () => {
    const { store, waiting } = heldStore();
    const plugin = new HostLocalPlugin(deps(store));
    await plugin.start();
    const failed = plugin.add(ref('a'));
    await Promise.resolve();
    waiting[0]!.settle(new Error('disk full'));
    await expect(failed).rejects.toThrow('disk full');
    await expect(plugin.check(ref('a'))).rejects.toThrow('no IP address is recorded');
  });

  it('writes each address\'s file in the order asked, and the newest round-robin place', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'kedge-cni-'));
    const plugin = await HostLocalPlugin.open(deps(diskIpamStore({ dataDir, logger: silentLogger })));
    await plugin.start();
    await Promise.all(Array.from({ length: 50 }, (_, i) => plugin.add(ref(`c${i}`))));
    // Released and taken again at once: the release's removal must not land after the new reservation.
    await Promise.all([plugin.del(ref('c0')), plugin.gc([{ containerId: 'c1', ip: '10.1.0.3' }, { containerId: 'z', ip: '10.1.0.2' }])]);
    // Released while its reservation is still being written: the file must not come back after.
    await Promise.all([plugin.add(ref('brief')), plugin.del(ref('brief'))]);
    const dir = ipamDir(dataDir);
    expect((await readdir(dir)).sort()).toEqual(['10.1.0.2', '10.1.0.3', 'last_reserved_ip.0']);
    expect(await readFile(join(dir, '10.1.0.2'), 'utf8')).toBe('z');
    expect(await readFile(join(dir, 'last_reserved_ip.0'), 'utf8')).toBe('10.1.0.52');
  });
});
