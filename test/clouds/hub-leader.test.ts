import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED } from '../../cloud/hub/broker.js';
import { startCloud, type Cloud, type CloudOptions } from '../../cloud/main.js';
import { MemoryStore } from '../../cloud/store/memory-store.js';
import type { Store } from '../../cloud/store/store.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { eventually } from '../support/eventually.js';
import { beforeStoreWrites } from '../support/store-writes.js';
import { CLOUD_PASSWORD, MemorySync } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

const { leaseDurationMs: LEASE, retryPeriodMs: RETRY } = defaultTiming;
/** Where the clouds are told their external broker is; an in-memory broker stands in for it. */
const EXTERNAL_URL = 'mqtt://broker.example:1883';

/** The shared store as one cloud sees it, counting that cloud's writes of NodeSyncs (the ack ledger). */
const countingLedgerWrites = (store: Store, writes: { count: number }): Store =>
  beforeStoreWrites(store, (_method, key) => void (key.includes('/nodesyncs/') && writes.count++));

const pod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] } });

/** Two clouds on one store: the hub's Lease decides which cloud's hub serves the edges. */
describe("several clouds: only the hub's leader serves edges", () => {
  const clock = new FakeClock(realClock.now());
  let store: MemoryStore;
  let dir: string;
  const clouds: Cloud[] = [];
  const edges: EdgeHandle[] = [];
  const writes = [{ count: 0 }, { count: 0 }];
  let external: MemorySync | undefined;

  const start = async (n: 0 | 1, extra: Partial<CloudOptions> = {}): Promise<Cloud> => {
    const cloud = await startCloud({ dataDir: join(dir, `cloud-${n}`), apiPort: 0, mqttPort: 0, store: countingLedgerWrites(store, writes[n]!), clock, logger: silentLogger, ...extra });
    clouds.push(cloud);
    return cloud;
  };
  const twoClouds = async (extra: (n: 0 | 1) => Partial<CloudOptions> = () => ({})): Promise<[Cloud, Cloud]> => {
    store = new MemoryStore();
    dir = await mkdtemp(join(tmpdir(), 'kedge-hub-leader-'));
    return [await start(0, extra(0)), await start(1, extra(1))];
  };
  /** An edge given every cloud's broker, `first` first. */
  const edgeOf = async (first: Cloud, then: Cloud): Promise<EdgeHandle> => {
    const edge = await startEdge({
      nodeName: 'edge-1', brokerUrl: `${first.brokerUrl},${then.brokerUrl}`, token: first.credentials.edge, dataDir: join(dir, 'edge-1'),
      localApiPort: 0, clock, timing: defaultTiming, logger: silentLogger, random: () => 0.5, networkPlugin: 'memory', podCIDR: '10.244.1.0/24',
    });
    edges.push(edge);
    return edge;
  };
  const hubMessage = (cloud: Cloud): string | undefined => cloud.components.list().find((s) => s.name === 'hub')?.message;
  const runningFor = async (edge: EdgeHandle, name: string): Promise<number> => {
    const uid = edge.cache.find('Pod', 'default', name)?.object.metadata.uid;
    return uid === undefined ? 0 : (await edge.runtime.listContainers()).filter((c) => c.podUid === uid && c.state === 'running').length;
  };

  afterEach(async () => {
    for (const edge of edges.splice(0)) await edge.stop();
    for (const cloud of clouds.splice(0)) await cloud.stop();
    await external?.close();
    external = undefined;
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    for (const w of writes) w.count = 0;
  });

  it("the first cloud's hub serves; the standby's broker refuses the edge, which ends at the leader; the standby writes no ledger", async () => {
    const [a, b] = await twoClouds();
    const edge = await edgeOf(b, a);
    await eventually(clock, () => a.hub.connectedNodes().includes('edge-1'), "the edge at the leader's hub", { wallTimeoutMs: 30_000 });
    expect(b.counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBeGreaterThan(0);
    expect([hubMessage(a), hubMessage(b)]).toEqual(['ok (leader)', `standby (leader: ${a.hubLeader()})`]);
    expect(b.components.list().find((s) => s.name === 'hub')?.healthy).toBe(true);
    expect([b.hub.connectedNodes(), b.hub.stats().sent, b.hub.brokerLink().up, b.ledger.nodes()]).toEqual([[], 0, false, []]);

    await a.api.create({ resource: 'pods', namespace: 'default' }, pod('web'));
    await eventually(clock, async () => (await runningFor(edge, 'web')) === 1, 'the pod running on the edge', { wallTimeoutMs: 30_000 });
    await eventually(clock, () => a.ledger.get('edge-1', edge.cache.find('Pod', 'default', 'web')!.object.metadata.uid!), "the edge's ack in the leader's ledger");
    const err = await b.hub.podLogs('edge-1', { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u' }, {}).catch((e: unknown) => e);
    expect(isKedgeError(err, 'Unavailable')).toBe(true);
    expect((err as Error).message).toBe(`this cloud's hub is standby: the cloud "${a.hubLeader()}" serves the edges`);
    expect(() => b.ledger.record('edge-1', { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u', resourceVersion: '1' })).toThrow(/standby/);
    expect(writes[0]!.count).toBeGreaterThan(0);
    expect(writes[1]!.count).toBe(0);
  });

  it('the leader killed without releasing its Lease: the standby takes over after the lease duration, the edge reconnects to it, and a pod created just before reaches it once', async () => {
    const [a, b] = await twoClouds();
    const edge = await edgeOf(a, b);
    await eventually(clock, () => a.hub.connectedNodes().includes('edge-1'), "the edge at the leader's hub", { wallTimeoutMs: 30_000 });
    await a.api.create({ resource: 'pods', namespace: 'default' }, pod('before'));
    await eventually(clock, async () => (await runningFor(edge, 'before')) === 1, 'the first pod running', { wallTimeoutMs: 30_000 });

    await b.api.create({ resource: 'pods', namespace: 'default' }, pod('just-before'));
    // As kill -9: the store cut first, so nothing is released on the way down.
    await a.components.stop('store');
    await a.stop();
    clouds.splice(clouds.indexOf(a), 1);
    const killedAt = clock.now();
    expect(b.hub.connectedNodes()).toEqual([]);

    await eventually(clock, () => b.hub.connectedNodes().includes('edge-1'), "the edge at the new leader's hub", { wallTimeoutMs: 60_000 });
    expect(clock.now() - killedAt).toBeGreaterThan(LEASE - RETRY);
    expect(hubMessage(b)).toBe('ok (leader)');
    await eventually(clock, async () => (await runningFor(edge, 'just-before')) === 1, 'the pod created just before the kill running', { wallTimeoutMs: 30_000 });
    expect(await runningFor(edge, 'before')).toBe(1);
    const containers = await edge.runtime.listContainers();
    expect(containers.map((c) => [c.state, c.attempt])).toEqual([['running', 0], ['running', 0]]);
    const uid = edge.cache.find('Pod', 'default', 'just-before')!.object.metadata.uid!;
    await eventually(clock, () => b.ledger.get('edge-1', uid), "the edge's ack in the new leader's ledger");
    expect(b.ledger.get('edge-1', edge.cache.find('Pod', 'default', 'before')!.object.metadata.uid!)).toBeDefined(); // loaded on its win
  });

  it("with an external broker, only the leading cloud's hub connects to it; the standby's when the leader leaves", async () => {
    const broker = (external = new MemorySync({ clock }));
    /** Each cloud's hub clients of the external broker, by client id. */
    const clients: string[][] = [[], []];
    const [a, b] = await twoClouds((n) => ({
      brokerUrl: EXTERNAL_URL,
      transport: (identity) => (clients[n]!.push(identity.clientId), broker.transport({ ...identity, password: CLOUD_PASSWORD })),
    }));
    expect([clients[0]!.length, clients[1]!.length, a.hub.brokerLink().up]).toEqual([1, 0, true]);
    const broker1 = b.components.list().find((s) => s.name === 'broker');
    expect(broker1).toMatchObject({ healthy: true, message: `standby (leader: ${a.hubLeader()})` });

    await a.stop(); // releases the Lease
    clouds.splice(clouds.indexOf(a), 1);
    await runUntil(clock, () => b.hub.brokerLink().up, "the other cloud's hub at the broker", { budgetMs: 3 * RETRY });
    expect(clients[1]!.length).toBe(1);
    expect(clients[1]![0]).not.toBe(clients[0]![0]);
  });
});
