import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../shared/types.js';
import { createFleetPods, fleetPod } from '../../sim/fleet-pods.js';
import { pinned, readyNodes, startFleetWorld, until, waitConverged, type FleetWorld } from './fleet-fixture.js';

const NODES = 100;
const UNBOUND = 20;

/** Container ids per pod uid, over every hollow edge's runtime. */
async function containersByPod(world: FleetWorld): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const edge of world.fleet.edges.values()) {
    for (const c of await edge.runtime.listContainers()) out.set(c.podUid, [...(out.get(c.podUid) ?? []), c.id]);
  }
  return out;
}

/**
 * The acceptance smoke test for fleets: 100 hollow edges survive one storm (every link cut at
 * once, one change per node while cut, every link healed at once) with nothing lost, nothing
 * doubled and nothing restarted. Correctness only: no timing is asserted.
 */
describe('a storm over a fleet of 100 hollow edges', () => {
  let world: FleetWorld;
  beforeAll(async () => {
    world = await startFleetWorld(NODES);
  }, 60_000);
  afterAll(async () => {
    await world?.stop();
  }, 60_000);

  it('keeps every pod, runs each on exactly its node, starts no container twice', async () => {
    const { fleet, cloud } = world;
    await until(world, async () => (await readyNodes(world)).length === NODES, '100 Ready nodes');
    const first = [...fleet.names.map((node) => pinned(`${node}-a`, node)), ...Array.from({ length: UNBOUND }, (_, i) => fleetPod(`loose-${i + 1}`, 'hollow'))];
    await createFleetPods(cloud.api, first, { concurrency: 16 });
    const before = await waitConverged(world, NODES + UNBOUND, 'the first 120 pods Running on their edges');
    const containersBefore = await containersByPod(world);

    // The storm: every cable out at once, both ends told at once (reset), one change per node meanwhile.
    for (const node of fleet.names) world.cut(node);
    for (const node of fleet.names) world.reset(node);
    const lost = (): boolean => !cloud.hub.connectedNodes().some((n) => fleet.edges.has(n));
    await until(world, lost, 'the cloud to lose every hollow node');
    await createFleetPods(cloud.api, fleet.names.map((node) => pinned(`${node}-b`, node)), { concurrency: 16 });
    for (const node of fleet.names) world.heal(node);

    const after = await waitConverged(world, 2 * NODES + UNBOUND, 'every pod Running on its edge after the storm');

    // Nothing lost: every pod from before is still there, same uid, on the same node.
    const afterByUid = new Map(after.map((p) => [p.metadata.uid!, p]));
    for (const p of before) expect(afterByUid.get(p.metadata.uid!)?.spec?.nodeName).toBe(p.spec!.nodeName);
    for (const node of fleet.names) expect(after.find((p) => p.metadata.name === `${node}-b`)?.spec?.nodeName).toBe(node);

    // No pod held by two edges.
    const holders = new Map<string, string[]>();
    for (const node of fleet.names) for (const p of (await fleet.nodePods(node))!) holders.set(p.metadata.uid!, [...(holders.get(p.metadata.uid!) ?? []), node]);
    expect(holders.size).toBe(after.length);
    expect([...holders.values()].filter((nodes) => nodes.length !== 1)).toEqual([]);

    // No container started twice: one container per pod, the old ones untouched, no restarts.
    const containersAfter = await containersByPod(world);
    expect([...containersAfter.keys()].sort()).toEqual([...afterByUid.keys()].sort());
    expect([...containersAfter.values()].filter((ids) => ids.length !== 1)).toEqual([]);
    for (const [uid, ids] of containersBefore) expect(containersAfter.get(uid)).toEqual(ids);
    const restarts = (p: Pod): number => (p.status?.containerStatuses ?? []).reduce((sum, c) => sum + c.restartCount, 0);
    expect(after.filter((p) => restarts(p) !== 0).map((p) => p.metadata.name)).toEqual([]);
  }, 120_000);
});
