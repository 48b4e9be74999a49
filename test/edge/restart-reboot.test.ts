import { cp } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EdgeHandle } from '../../edge/main.js';
import { FakeClock } from '../../shared/clock.js';
import { LOCK_DIR } from '../../shared/data-dir-lock.js';
import type { Pod } from '../../shared/types.js';
import { allRunning, offlineEdges, podsOf, seedCache, timing } from './edge-harness.js';
import { pod } from './fixtures.js';

const PODS = [pod('web', 'u-web'), pod('db', 'u-db'), pod('crashy', 'u-crashy', {}, { 'kedge.io/crash-after': '1h' })];
const summary = (pods: Pod[]) =>
  pods
    .map((p) => ({ uid: p.metadata.uid, phase: p.status?.phase, containers: p.status?.containerStatuses?.map((c) => [c.containerID, c.restartCount]) }))
    .sort((a, b) => String(a.uid).localeCompare(String(b.uid)));

/** Advances the fake clock by `ms` and waits for the sync that follows (real file I/O). */
async function after(clock: FakeClock, edge: EdgeHandle, ms: number): Promise<void> {
  await clock.advance(ms);
  await edge.edged.sync();
}

describe('edge restart and node reboot with the cloud unreachable', () => {
  const t = offlineEdges('kedge-restart-');

  /** An edge that got its pods from the cloud earlier, now running them offline; then `kill -9`. */
  async function runningThenKilled(): Promise<{ before: EdgeHandle; pods: Pod[]; dataDir: string }> {
    const first = join(t.dir, 'first');
    await seedCache(first, PODS);
    const before = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir: first });
    await before.edged.sync(); // the first sync starts the pods at the fake instant of the start
    await after(t.clock, before, timing.syncIntervalMs);
    const pods = await podsOf(before);
    expect(allRunning(pods)).toBe(true);
    // kill -9: only what is on disk survives. Copy the data directory while the edge runs,
    // but for its lock and its socket: they are this very process's, which a kill would have ended.
    const dataDir = join(t.dir, 'killed');
    await cp(first, dataDir, { recursive: true, filter: (path) => !basename(path).startsWith(LOCK_DIR) });
    await t.fleet.stopAll();
    return { before, pods, dataDir };
  }

  it('a restart adopts the running containers: same uids, same container ids, Running at once', async () => {
    const { before, pods, dataDir } = await runningThenKilled();
    const containers = await before.runtime.listContainers();
    await t.clock.advance(5_000); // the process was down for a while

    const wallStart = performance.now();
    const edge = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir });
    await edge.edged.sync(); // the first sync, at the same fake instant as the start
    const now = await podsOf(edge);
    console.info(`[restart] startEdge() to every pod Running in /pods: ${(performance.now() - wallStart).toFixed(0)} ms wall time`);

    expect(allRunning(now)).toBe(true);
    expect(summary(now)).toEqual(summary(pods));
    expect(await edge.runtime.listContainers()).toEqual(containers); // adopted, not restarted
    expect(now.flatMap((p) => p.status!.containerStatuses!.map((c) => c.restartCount))).toEqual([0, 0, 0]);
    expect(edge.bootId).toBe(before.bootId);
    expect(edge.hub.connectivity.connected).toBe(false);
    await after(t.clock, edge, timing.syncIntervalMs);
    expect(summary(await podsOf(edge))).toEqual(summary(pods));
  });

  it('a reboot (reboot: true, kedge edge --reboot) starts every container again: restartCount + 1, new boot id', async () => {
    const { before, pods, dataDir } = await runningThenKilled();
    const oldIds = new Set((await before.runtime.listContainers()).map((c) => c.id));

    const wallStart = performance.now();
    const edge = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir, reboot: true });
    expect(edge.bootId).not.toBe(before.bootId);
    // No sync awaited: /pods itself waits for the first one, so it never shows the lost containers.
    const starting = await podsOf(edge);
    expect(starting.map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
    const shown = starting.map((p) => p.status!.containerStatuses![0]!.containerID!.replace('sim://', ''));
    expect(shown.filter((id) => oldIds.has(id))).toEqual([]);
    for (const p of starting) {
      expect(p.status!.containerStatuses![0]).toMatchObject({
        restartCount: 1,
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: { terminated: { exitCode: 255, reason: 'Unknown' } },
      });
    }
    // Running within 1 s of the start, on the fake clock: edged looks again a quarter interval
    // after starting containers (they take timing.containerStartMs = 200 ms here).
    await after(t.clock, edge, timing.syncIntervalMs / 4);
    const running = await podsOf(edge);
    console.info(`[reboot] startEdge() to every pod Running in /pods: ${(performance.now() - wallStart).toFixed(0)} ms wall time`);
    expect(allRunning(running)).toBe(true);
    const containers = await edge.runtime.listContainers();
    expect(containers.some((c) => oldIds.has(c.id))).toBe(false);
    expect(containers.map((c) => c.attempt)).toEqual([1, 1, 1]);
    for (const p of running) expect(p.status!.containerStatuses![0]).toMatchObject({ restartCount: 1, lastState: { terminated: { reason: 'Unknown' } } });

    // Another reboot: the count keeps growing.
    await t.fleet.stopAll();
    const again = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir, reboot: true });
    expect(again.bootId).not.toBe(edge.bootId);
    await again.edged.ready();
    await after(t.clock, again, 1000);
    const twice = await podsOf(again);
    expect(allRunning(twice)).toBe(true);
    expect(twice.map((p) => p.status!.containerStatuses![0]!.restartCount)).toEqual([2, 2, 2]);
  });
});
