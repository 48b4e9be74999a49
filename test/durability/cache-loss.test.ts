import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../../edge/metamanager/lowdb-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';

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
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, links: true, timing: { keepaliveMs: 1_000 }, logger });
    const c = cluster;
    for (const name of ['kept', 'deleted']) await c.api.create(ref(name), pinned(name));
    await eventually(c.clock, async () => {
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
    c.link('edge-1').cut();
    await c.api.delete(ref('deleted'), { gracePeriodSeconds: 0 });
    await c.startEdge('edge-1');
    expect(logger.lines.filter((l) => l.includes(' WARN ') && l.includes(CACHE_FILE))).toEqual([
      expect.stringContaining(`${cacheFile} is empty and ${CACHE_FILE}.prev is no good copy either: starting with an empty cache`),
    ]);

    for (let t = 0; t < 10 * MINUTE; t += MINUTE) {
      await c.clock.advance(MINUTE);
      await c.edge('edge-1').edged.sync();
      expect(await containersByPod(c)).toEqual(before);
    }

    c.link('edge-1').heal();
    await eventually(c.clock, async () => {
      const onEdge = await containersByPod(c);
      const cloudPods = await c.api.list<Pod>({ resource: 'pods', namespace: 'default' });
      return Object.keys(onEdge).join() === kept && cloudPods.items.every((p) => p.status?.phase === 'Running') && onEdge;
    }, 'edge-1 to run only what the cloud relisted, Running', { wallTimeoutMs: 10_000 });
    expect(logger.lines.filter((l) => l.includes('after the cache was lost'))).toHaveLength(1);
    expect((await containersByPod(c))[kept]).toEqual(before[kept]);
    expect((await c.edgePods('edge-1')).map((p) => p.metadata.uid)).toEqual([kept]);
    expect((await c.api.get<Pod>(ref('kept'))).status?.containerStatuses?.[0]?.restartCount).toBe(0);
    expect(before[deleted]).toHaveLength(1);
  });
});
