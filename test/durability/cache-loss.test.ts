import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CacheData } from '../../edge/metamanager/cache-document.js';
import { CACHE_FILE, openLowdbCache } from '../../edge/metamanager/lowdb-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pod } from '../edge/fixtures.js';
import { pass, runUntil } from '../support/settle.js';

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
/** Autonomous: the cloud does not evict them however long the node is away. */
const pinned = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { 'app-offline.kubeedge.io': 'autonomy' } },
  spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/app:1' }] },
});
const MINUTE = 60_000;

/** Container ids on edge-1, by pod uid. */
async function containersByPod(cluster: Cluster<FakeClock>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const c of await cluster.edge('edge-1').runtime.listContainers()) (out[c.podUid] ??= []).push(c.id);
  return out;
}

/**
 * An edge whose cache.json was lost (emptied, no good copy) while its runtime still runs its pods.
 * It starts, says so, and keeps every container running (offline, for as long as it takes);
 * the cloud's first sync relists what it should run: those containers are adopted, the
 * others stopped.
 */
describe('an edge that lost its cache', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('keeps its pods running offline, then keeps what the cloud relists and stops the rest', async () => {
    const logger = memoryLogger('cluster');
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 }, logger });
    const c = cluster;
    for (const name of ['kept', 'deleted']) await c.api.create(ref(name), pinned(name));
    await runUntil(c.clock, async () => {
      const pods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return pods.items.length === 2 && pods.items.every((p) => p.status?.phase === 'Running');
    }, 'both pods Running');
    const uid = async (name: string) => (await c.api.get<Pod>(ref(name))).metadata.uid!;
    const [kept, deleted] = [await uid('kept'), await uid('deleted')];
    const before = await containersByPod(c);

    // The edge process stops, its cache is lost, and it comes back with the cable pulled.
    await c.stopEdge('edge-1');
    const cacheFile = join(c.dir, 'edges', 'edge-1', CACHE_FILE);
    await writeFile(cacheFile, '');
    await rm(`${cacheFile}.prev`, { force: true });
    c.cut('edge-1');
    await c.api.delete(ref('deleted'), { gracePeriodSeconds: 0 });
    await c.startEdge('edge-1');
    expect(logger.lines.filter((l) => l.includes(' WARN ') && l.includes(CACHE_FILE))).toEqual([
      expect.stringContaining(`${cacheFile} is empty and ${CACHE_FILE}.prev is no good copy either: starting with an empty cache`),
    ]);

    for (let t = 0; t < 10 * MINUTE; t += MINUTE) {
      await pass(c.clock, MINUTE, 1_000);
      await c.edge('edge-1').edged.sync();
      expect(await containersByPod(c)).toEqual(before);
    }

    c.heal('edge-1');
    await runUntil(c.clock, async () => {
      const onEdge = await containersByPod(c);
      const cloudPods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return Object.keys(onEdge).join() === kept && cloudPods.items.every((p) => p.status?.phase === 'Running') && onEdge;
    }, 'edge-1 to run only what the cloud relisted, Running');
    expect(logger.lines.filter((l) => l.includes('after the cache was damaged'))).toHaveLength(1);
    expect((await containersByPod(c))[kept]).toEqual(before[kept]);
    expect((await c.edgePods('edge-1')).map((p) => p.metadata.uid)).toEqual([kept]);
    expect((await c.api.get<Pod>(ref('kept'))).status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(before[deleted]).toHaveLength(1);
  });
  it('holds them through any number of restarts until the cloud relists, after a fall back to an older copy', async () => {
    const logger = memoryLogger('cluster');
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1, timing: { keepaliveMs: 1_000 }, logger });
    const c = cluster;
    for (const name of ['old', 'newer', 'deleted']) await c.api.create(ref(name), pinned(name));
    await runUntil(c.clock, async () => {
      const pods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return pods.items.length === 3 && pods.items.every((p) => p.status?.phase === 'Running');
    }, 'the pods Running');
    const uid = async (name: string) => (await c.api.get<Pod>(ref(name))).metadata.uid!;
    const [old, newer, deleted] = [await uid('old'), await uid('newer'), await uid('deleted')];
    const before = await containersByPod(c);

    // The edge stops; its cache.json is lost, and its last good copy is from before the newer pods came.
    await c.stopEdge('edge-1');
    const cacheFile = join(c.dir, 'edges', 'edge-1', CACHE_FILE);
    const older = JSON.parse(await readFile(cacheFile, 'utf8')) as CacheData;
    for (const gone of [newer, deleted]) {
      delete older.objects[gone];
      delete older.outbox[gone];
    }
    await writeFile(`${cacheFile}.prev`, JSON.stringify(older));
    await writeFile(cacheFile, '');
    c.cut('edge-1');
    await c.api.delete(ref('deleted'), { gracePeriodSeconds: 0 });

    // Offline, it starts from the older copy, and is restarted (or killed) twice before the cloud relists.
    for (let start = 0; start < 3; start++) {
      if (start > 0) await c.stopEdge('edge-1');
      await c.startEdge('edge-1');
      for (let t = 0; t < 3 * MINUTE; t += MINUTE) {
        await pass(c.clock, MINUTE, 1_000);
        await c.edge('edge-1').edged.sync();
        expect(await containersByPod(c)).toEqual(before);
      }
    }
    expect(logger.lines.filter((l) => l.includes(' WARN ') && l.includes(CACHE_FILE))).toEqual([expect.stringContaining(`${cacheFile} is empty: using its last good copy ${CACHE_FILE}.prev`)]);

    c.heal('edge-1');
    await runUntil(c.clock, async () => Object.keys(await containersByPod(c)).sort().join() === [old, newer].sort().join(), 'edge-1 to run only what the cloud relisted');
    expect(logger.lines.filter((l) => l.includes('after the cache was damaged'))).toHaveLength(1);
    expect(await containersByPod(c)).toEqual({ [old]: before[old], [newer]: before[newer] });
    await c.stopEdge('edge-1');
    expect((JSON.parse(await readFile(cacheFile, 'utf8')) as CacheData).awaitingRelist).toBeUndefined(); // the next start holds nothing unheld
  });
});

/** The hold on unheld pods is kept in the cache document itself, so that no crash or restart ends it early. */
describe("a recovered cache awaits the cloud's relist", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const cacheIn = async (): Promise<string> => join((dir = await mkdtemp(join(tmpdir(), 'kedge-relist-'))), CACHE_FILE);
  const podRef = (uid: string) => ({ kind: 'Pod', namespace: 'default', name: uid, uid, resourceVersion: '1' });

  it('lost outright: it still awaits it after restarts, whatever the cloud sent in between', async () => {
    const path = await cacheIn();
    await writeFile(path, '');
    const lost = await openLowdbCache(path);
    expect(lost.awaitingRelist()).toBe(true);
    lost.apply(podRef('u1'), pod('u1', 'u1')); // the relist has begun: the file is a good one now
    await lost.flush();
    const restarted = await openLowdbCache(path);
    expect([restarted.recovered, restarted.awaitingRelist(), restarted.objects().length]).toEqual([false, true, 1]);
    restarted.relisted();
    await restarted.flush();
    expect((await openLowdbCache(path)).awaitingRelist()).toBe(false);
  });

  it('fallen back to its last good copy: that copy is written back with the hold, before anything else', async () => {
    const path = await cacheIn();
    const good = await openLowdbCache(path);
    good.apply(podRef('u1'), pod('u1', 'u1'));
    await good.flush();
    good.apply(podRef('u2'), pod('u2', 'u2'));
    await good.flush();
    await writeFile(path, '{"objects": {'); // torn
    await openLowdbCache(path); // and the edge is killed at once
    const restarted = await openLowdbCache(path);
    expect([restarted.recovered, restarted.awaitingRelist(), restarted.objects().map((o) => o.uid)]).toEqual([false, true, ['u1']]);
  });
});
