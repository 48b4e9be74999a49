import { cpSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CrashPoint, CrashStep } from '../../edge/crash-point.js';
import type { EdgeHandle } from '../../edge/main.js';
import { LOCK_DIR } from '../../shared/data-dir-lock.js';
import { allRunning, offlineEdges, podsOf, seedCache, timing } from '../edge/edge-harness.js';
import { pod } from '../edge/fixtures.js';

const PODS = [pod('web', 'u-web', { containers: [{ name: 'app', image: 'a' }, { name: 'side', image: 'b' }] }), pod('db', 'u-db')];
/** Every container of PODS, once, running: what a restarted edge must come back to. */
const ONE_COPY_EACH = ['u-db/app running', 'u-web/app running', 'u-web/side running'];

/** The steps a sim pod's start goes through (the shim steps are the process runtime's), and a later container's. */
const STEPS: [CrashStep, number][] = [
  ['sandbox-created', 1],
  ['container-created', 1],
  ['container-created', 3],
  ['container-started', 1],
  ['container-started', 2],
  ['status-queued', 1],
];

/**
 * The edge in this process, "killed" at a step: what is on disk at that instant is copied
 * aside (all a kill -9 leaves), and a new edge starts over the copy while the old one is
 * dropped. The sim runtime runs no process, so this is the crash as a real one would be.
 */
describe('a sim pod, the edge killed at each step of its start', () => {
  const t = offlineEdges('kedge-sim-crash-');

  /** A crash point that copies `from` to `to` the n-th time `step` is reached. */
  function snapshotAt(step: CrashStep, n: number, from: string, to: string): { crashPoint: CrashPoint; crashed: () => boolean } {
    let left = n;
    return {
      crashPoint: (reached) => {
        if (reached === step && --left === 0) cpSync(from, to, { recursive: true, filter: (path) => !basename(path).startsWith(LOCK_DIR) }); // the lock and its socket are this live process's
      },
      crashed: () => left <= 0,
    };
  }

  async function settle(edge: EdgeHandle): Promise<void> {
    await edge.edged.sync();
    for (let i = 0; i < 5 && !allRunning(await podsOf(edge)); i++) {
      await t.clock.advance(timing.syncIntervalMs);
      await edge.edged.sync();
    }
  }

  it.each(STEPS)('at %s (#%i): the restarted edge runs one copy of each container', async (step, n) => {
    const first = join(t.dir, 'first');
    const killed = join(t.dir, 'killed');
    await seedCache(first, PODS);
    const crash = snapshotAt(step, n, first, killed);
    const before = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir: first, crashPoint: crash.crashPoint });
    await before.edged.sync();
    expect(crash.crashed()).toBe(true);
    await t.fleet.stopAll();

    const edge = await t.fleet.start({ brokerUrl: t.brokerUrl, dataDir: killed });
    await settle(edge);
    expect(allRunning(await podsOf(edge))).toBe(true);
    const containers = await edge.runtime.listContainers();
    expect(containers.map((c) => `${c.podUid}/${c.name} ${c.state}`).sort()).toEqual(ONE_COPY_EACH);
    expect((await edge.runtime.listSandboxes()).map((s) => s.podUid).sort()).toEqual(['u-db', 'u-web']);
  });
});
