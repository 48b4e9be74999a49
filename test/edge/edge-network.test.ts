import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ipamDir } from '../../edge/network/cni/disk-ipam-store.js';
import { offlineEdges, podsOf, seedCache, timing } from './edge-harness.js';
import { pod } from './fixtures.js';

describe("an edge's network plugin", () => {
  const t = offlineEdges('kedge-edge-cni-');

  it('is host-local in the data dir, a component of the edge; at start it releases addresses no sandbox holds (a kill -9 mid-ADD)', async () => {
    const dataDir = join(t.dir, 'edge');
    await seedCache(dataDir, [pod('web', 'u-web')]);
    const first = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir });
    await first.edged.sync();
    await t.clock.advance(timing.syncIntervalMs);
    await first.edged.sync();
    expect(first.components.map((c) => c.name)).toEqual(['kedge-cni', 'kube-proxy']);
    expect(first.components[0]).toBe(first.network);
    const [web] = await podsOf(first);
    expect(web!.status).toMatchObject({ phase: 'Running', podIP: '127.64.1.2' });
    await t.fleet.stopAll();

    // ADD recorded an address, and the edge died before its runtime recorded the sandbox.
    await writeFile(join(ipamDir(dataDir), '127.64.1.3'), 'sandbox-never-recorded');
    const again = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir });
    await again.edged.sync();
    expect((await readdir(ipamDir(dataDir))).sort()).toEqual(['127.64.1.2', 'last_reserved_ip.0']);
    expect((await podsOf(again))[0]!.status?.podIP).toBe('127.64.1.2'); // adopted with its address
  });
});
