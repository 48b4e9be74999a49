import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EdgeHandle } from '../../edge/main.js';
import type { PodStatusDraft } from '../../edge/hub/status-sender.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { PodStatusMessage, UpMessage } from '../../shared/protocol/envelope.js';
import type { Pod } from '../../shared/types.js';
import { CloudDouble } from '../support/memory-peers.js';
import { MemorySync, NODE_PASSWORD } from '../support/memory-sync.js';
import { runUntil, settle } from '../support/settle.js';
import { allRunning, EdgeFleet, NODE, podsOf, seedCache, timing } from './edge-harness.js';
import { pod } from './fixtures.js';

const crashing = { 'kedge.io/start-delay': '0s', 'kedge.io/crash-after': '1500ms', 'kedge.io/exit-code': '2' };
const isStatus = (m: UpMessage): m is PodStatusMessage => m.type === 'podStatus';
const byName = (pods: Pod[], name: string): Pod => pods.find((p) => p.metadata.name === name)!;

describe('edge offline', () => {
  let dir: string;
  let clock: FakeClock;
  let fleet: EdgeFleet;
  let sync: MemorySync;
  /** The edge's side of a broker that is down until a test starts it: the cloud is unreachable. */
  let unreachable: { brokerUrl: string; transport: MemorySync['transport']; token: string };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-offline-'));
    clock = new FakeClock();
    fleet = new EdgeFleet(clock, memoryLogger('edge'));
    sync = new MemorySync({ clock, timing });
    sync.broker.stop();
    unreachable = { brokerUrl: 'memory://broker', transport: sync.transport, token: NODE_PASSWORD };
  });
  afterEach(async () => {
    await fleet.stopAll();
    await sync.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Ticks the fake clock one sync interval at a time, waiting for each sync. */
  async function syncs(edge: EdgeHandle, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await clock.advance(timing.syncIntervalMs);
      await edge.edged.sync();
    }
  }

  it('restarts exited containers per restartPolicy and keeps one queued status per pod', async () => {
    await seedCache(dir, [
      pod('always', 'u-always', {}, crashing),
      pod('never', 'u-never', { restartPolicy: 'Never' }, crashing),
      pod('done', 'u-done', { restartPolicy: 'OnFailure' }, { ...crashing, 'kedge.io/exit-code': '0' }),
      pod('web', 'u-web'),
    ]);
    const edge = await fleet.start({ ...unreachable, dataDir: dir });
    await edge.edged.sync();
    const versions = new Set<number>();
    // Crashes every 1.5 s after it starts: restarted at once, then after back-offs of 10, 20 and 40 s.
    for (let i = 0; i < 80; i++) {
      await syncs(edge, 1);
      for (const e of edge.cache.outbox()) if (e.ref.uid === 'u-always') versions.add(e.version);
    }

    const pods = await podsOf(edge);
    const always = byName(pods, 'always').status!;
    expect(always.containerStatuses![0]!.restartCount).toBeGreaterThanOrEqual(3);
    expect(always.containerStatuses![0]!.lastState.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
    expect(byName(pods, 'never').status).toMatchObject({ phase: 'Failed', containerStatuses: [{ restartCount: 0 }] });
    expect(byName(pods, 'done').status).toMatchObject({ phase: 'Succeeded', containerStatuses: [{ restartCount: 0 }] });
    expect(byName(pods, 'web').status?.phase).toBe('Running');

    // Many status changes while offline, one outbox entry per pod (coalesced by uid) [SYNC-12].
    expect(versions.size).toBeGreaterThanOrEqual(3);
    expect(edge.cache.outbox().map((e) => e.ref.uid).sort()).toEqual(['u-always', 'u-done', 'u-never', 'u-web']);
    const connection = (await (await fetch(`${edge.localApiUrl}/connection`)).json()) as { connected: boolean; queued: number };
    expect(connection).toMatchObject({ connected: false, queued: 4 });
  });

  it('after the broker comes back, flushes the outbox at most statusFlushBatch per window and empties it on acks', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    await seedCache(dir, names.map((n) => pod(n, `u-${n}`)));
    const edge = await fleet.start({ ...unreachable, dataDir: dir, statusFlushBatch: 2 });
    await edge.edged.sync();
    await syncs(edge, 2);
    expect(allRunning(await podsOf(edge))).toBe(true);
    expect(edge.cache.outbox()).toHaveLength(5);

    sync.broker.start();
    const c = await CloudDouble.connect(sync, NODE);
    await runUntil(clock, () => edge.hub.connectivity.connected, 'reconnected', { budgetMs: timing.reconnectMaxMs });
    await c.expect((m) => m.type === 'hello', 1, 'hello');

    const ackAll = async (): Promise<void> => {
      for (const m of c.received.filter(isStatus)) await c.send({ type: 'ack', parentId: m.id });
    };
    const statuses = (): PodStatusMessage[] => c.received.filter(isStatus);
    await c.expect(isStatus, 2, 'the first batch');
    await settle(); // give a flood the chance to show
    expect(statuses()).toHaveLength(2);
    await ackAll();
    await runUntil(clock, () => edge.cache.outbox().length === 3, 'first batch acked');

    await clock.advance(timing.statusResendMs * 1.5); // one more window (and a tick in it)
    await c.expect(isStatus, 4, 'the second batch');
    await settle();
    expect(statuses()).toHaveLength(4);
    await ackAll();

    await clock.advance(timing.statusResendMs * 1.5);
    await c.expect(isStatus, 5, 'the last one');
    await ackAll();
    await runUntil(clock, () => edge.cache.outbox().length === 0, 'outbox empty');
    expect(statuses().map((m) => m.ref.uid).sort()).toEqual(names.map((n) => `u-${n}`));
    // Every status carries its outbox version, for the cloud to drop older ones.
    for (const m of statuses()) expect((m as PodStatusMessage & Partial<PodStatusDraft>).statusVersion).toEqual(expect.any(Number));
  });
});
