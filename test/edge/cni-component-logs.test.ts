import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { ipamDir } from '../../edge/network/cni/disk-ipam-store.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import { eventually } from '../support/eventually.js';
import { MemorySync, NODE_PASSWORD } from '../support/memory-sync.js';
import { testNetwork } from '../support/test-network.js';
import { EdgeFleet, timing } from './edge-harness.js';
import { holdIn, pod } from './fixtures.js';

describe("the kedge-cni pod's logs", () => {
  let dir: string;
  let clock: FakeClock;
  let fleet: EdgeFleet;
  let sync: MemorySync;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-cni-logs-'));
    clock = new FakeClock();
    fleet = new EdgeFleet(clock, memoryLogger('edge'));
    sync = new MemorySync({ clock, timing });
    sync.broker.stop();
  });
  afterEach(async () => {
    await fleet.stopAll();
    await sync.close();
    (await ProcessRuntime.open({ dataDir: dir, clock, reboot: true, network: testNetwork() })).close();
    await rm(dir, { recursive: true, force: true });
  });

  it("hold the network plugin's lines", async () => {
    await mkdir(ipamDir(dir), { recursive: true });
    await writeFile(join(ipamDir(dir), '127.64.1.9'), ''); // a stray address: the plugin warns of it
    const cache = await openLowdbCache(join(dir, CACHE_FILE));
    const agent = pod('kedge-cni-abcde', 'u-cni', { runtimeClassName: 'kedge-agent', hostNetwork: true, containers: [{ name: 'kedge-cni', image: 'kedge/kedge-cni' }] });
    holdIn(cache, { ...agent, kind: 'Pod' });
    await cache.flush();
    const edge = await fleet.start({ brokerUrl: 'memory://broker', transport: sync.transport, token: NODE_PASSWORD, dataDir: dir, nodeIp: '127.0.0.1' });
    const lines = await eventually(clock, async () => {
      const [c] = await edge.runtime.listContainers();
      return c ? await edge.runtime.logs(c.id) : undefined;
    }, 'the kedge-cni container', { stepMs: 100 });
    expect(lines.map((l) => l.text).join('\n')).toContain('pod address');
  });
});
