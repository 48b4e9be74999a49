import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { Store } from '../../cloud/store/store.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { beforeStoreWrites } from '../support/store-writes.js';

const { renewDeadlineMs: DEADLINE } = defaultTiming;

/** The store, failing every write of the hub's Lease while `late.on` (renewals that do not land in time). */
const lateHubLease = (store: Store, late: { on: boolean }): Store =>
  beforeStoreWrites(store, (method, key) => {
    if (late.on && method === 'update' && key.endsWith('/leases/kube-system/kedge-hub')) throw new KedgeError('Unavailable', 'too late');
  });

const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] } });

/** A lone cloud whose hub renewal is late past the renew deadline loses its term, and wins its own Lease back a retry (2 s, no jitter) later. */
describe("a late renewal of the hub's Lease", () => {
  const clock = new FakeClock(realClock.now());
  const late = { on: false };
  let dir: string | undefined;
  let cloud: Cloud | undefined;
  let edge: EdgeHandle | undefined;
  afterEach(async () => {
    await edge?.stop();
    await cloud?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    edge = cloud = dir = undefined;
  });

  it('stops the hub, but the edge stays connected through it, and the next term resumes it: a pod created meanwhile arrives', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-late-renewal-'));
    const c = (cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, store: lateHubLease(new MemoryStore(), late), clock, logger: silentLogger, electionRandom: () => 0 }));
    const e = (edge = await startEdge({
      nodeName: 'edge-1', brokerUrl: c.brokerUrl, token: c.credentials.edge, dataDir: join(dir, 'edge-1'), localApiPort: 0, clock, timing: defaultTiming, logger: silentLogger, random: () => 0.5, networkPlugin: 'memory', podCIDR: '10.244.1.0/24',
    }));
    await eventually(clock, () => c.hub.connectedNodes().includes('edge-1'), 'the edge at the hub', { wallTimeoutMs: 30_000 });
    const drops: number[] = [];
    const watching = e.connectivity$.subscribe((link) => void (link.connected || drops.push(clock.now())));
    const hubLeads: boolean[] = [];
    const leading = c.hubLeading$.subscribe((on) => hubLeads.push(on));

    late.on = true;
    const lateFrom = clock.now();
    await eventually(clock, () => !hubLeads.at(-1), 'the term to end', { wallTimeoutMs: 30_000 });
    expect(clock.now() - lateFrom).toBeGreaterThanOrEqual(DEADLINE);
    expect([c.hub.brokerLink().up, c.hub.connectedNodes()]).toEqual([false, []]); // the hub stopped
    await c.api.create({ resource: 'pods', namespace: 'default' }, pod('meanwhile'));
    late.on = false;

    // Small steps of fake time: real sockets answer the elector and the edge's keepalive meanwhile.
    await eventually(clock, () => c.hub.connectedNodes().includes('edge-1'), "the next term's hub to resume the edge", { stepMs: 10, wallTimeoutMs: 30_000 });
    await eventually(clock, () => e.cache.find('Pod', 'default', 'meanwhile'), 'the pod created meanwhile on the edge', { wallTimeoutMs: 30_000 });
    expect(hubLeads).toEqual([true, false, true]);
    expect(drops.map((at) => at - lateFrom)).toEqual([]);
    watching.unsubscribe();
    leading.unsubscribe();
  });
});
