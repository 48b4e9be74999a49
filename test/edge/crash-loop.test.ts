import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EdgeHandle } from '../../edge/main.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import { deadBrokerUrl, EdgeFleet, podsOf, seedCache } from './edge-harness.js';
import { pod } from './fixtures.js';

const S = 1000;

describe('CrashLoopBackOff on an edge with no cloud', () => {
  let dir: string;
  let clock: FakeClock;
  let fleet: EdgeFleet;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-crashloop-'));
    clock = new FakeClock();
    fleet = new EdgeFleet(clock, memoryLogger('edge'));
  });
  afterEach(async () => {
    await fleet.stopAll();
    await rm(dir, { recursive: true, force: true });
  });

  /** Moves the fake clock on second by second, letting each sync (real file I/O) finish. */
  async function runFor(edge: EdgeHandle, ms: number, each: () => Promise<void>): Promise<void> {
    for (let t = 0; t < ms; t += S) {
      await clock.advance(S);
      await edge.edged.sync();
      await each();
    }
  }

  it('a container crashing 1 s after each start is restarted at once, then after 10, 20, 40, 80 s; restartCount grows', async () => {
    await seedCache(dir, [pod('crashy', 'u-crashy', {}, { 'kedge.io/crash-after': '1s' })]);
    const edge = await fleet.start({ brokerUrl: await deadBrokerUrl(), dataDir: dir });
    await edge.edged.sync();

    const created = new Map<number, number>();
    const finished = new Map<number, number>();
    let sawBackOff = '';
    await runFor(edge, 170 * S, async () => {
      for (const c of await edge.runtime.listContainers()) {
        created.set(c.attempt, c.createdAt);
        if (c.finishedAt !== undefined) finished.set(c.attempt, c.finishedAt);
      }
      const waiting = (await podsOf(edge))[0]!.status?.containerStatuses?.[0]?.state.waiting;
      if (waiting?.reason === 'CrashLoopBackOff' && !sawBackOff.includes(waiting.message!)) sawBackOff += `${waiting.message}\n`;
    });

    const waits = [1, 2, 3, 4, 5].map((n) => created.get(n)! - finished.get(n - 1)!);
    expect(waits.map((w) => Math.floor(w / S))).toEqual([0, 10, 20, 40, 80]);
    const status = (await podsOf(edge))[0]!.status!.containerStatuses![0]!;
    expect(status.restartCount).toBeGreaterThanOrEqual(5);
    expect(status.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(sawBackOff).toContain('back-off 20s restarting failed container=app pod=crashy_default(u-crashy)');
    expect(sawBackOff).toContain('back-off 80s');
    expect(edge.hub.connectivity.connected).toBe(false);
  });

  it('init containers run one at a time, in order, before the app container', async () => {
    const initContainers = [{ name: 'one', image: 'busybox' }, { name: 'two', image: 'busybox' }];
    await seedCache(dir, [pod('staged', 'u-staged', { initContainers }, { 'kedge.io/crash-after': '1s', 'kedge.io/exit-code': '0' })]);
    const edge = await fleet.start({ brokerUrl: await deadBrokerUrl(), dataDir: dir });
    await edge.edged.sync();
    const seen: string[] = [];
    await runFor(edge, 5 * S, async () => {
      const names = (await edge.runtime.listContainers()).sort((a, b) => a.createdAt - b.createdAt).map((c) => c.name).join(',');
      if (seen.at(-1) !== names) seen.push(names);
    });
    expect(seen.slice(0, 3)).toEqual(['one', 'one,two', 'one,two,app']);
    const status = (await podsOf(edge))[0]!.status!;
    expect(status.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(status.initContainerStatuses?.map((c) => c.state.terminated?.reason)).toEqual(['Completed', 'Completed']);
  });
});
