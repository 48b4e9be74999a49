import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Edged } from '../../edge/edged/edged.js';
import { createMemoryCache, podsIn, type LocalCache } from '../../edge/metamanager/local-cache.js';
import type { ProbeKind } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Container, Pod, PodStatus } from '../../shared/types.js';
import { passSyncing } from '../support/settle.js';
import { pod } from './fixtures.js';
import { testNetwork } from '../support/test-network.js';

const timing = { ...defaultTiming, syncIntervalMs: 1000, containerStartMs: 200 };
const S = 1000;
const probe = { httpGet: { port: 8080 }, periodSeconds: 1 };

describe('Edged with probes', () => {
  let dir: string;
  let clock: FakeClock;
  let cache: LocalCache;
  let edged: Edged | undefined;
  let runtime: SimRuntime;
  /** What the simulated container answers to each kind of probe. */
  let answers: Map<ProbeKind, boolean>;
  let stops: { id: string; graceMs: number }[];
  let onQueued: () => void;
  const changes = new Subject<void>();

  const run = async (spec: Partial<Container>, podSpec: Partial<Pod['spec']> = {}, syncIntervalMs = timing.syncIntervalMs): Promise<void> => {
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: timing.containerStartMs });
    runtime.simulatedProbe = async (_id, kind) => answers.get(kind) ?? true;
    const stop = runtime.stopContainer.bind(runtime);
    runtime.stopContainer = (id, graceMs) => (stops.push({ id, graceMs }), stop(id, graceMs));
    edged = new Edged({ cache, runtime, clock, timing: { ...timing, syncIntervalMs }, logger: silentLogger, hostIP: '127.0.0.1', onStatusQueued: () => onQueued() });
    edged.start(changes);
    const p = pod('web', 'u1', { containers: [{ name: 'app', image: 'nginx:1.27', ...spec }], ...podSpec });
    cache.apply({ kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '1' }, p);
    changes.next();
    await edged.sync();
  };
  const tick = (ms: number) => passSyncing(clock, () => edged!.sync(), ms);
  const status = (): PodStatus => podsIn(cache)[0]!.status!;
  const ready = () => status().conditions!.find((c) => c.type === 'Ready')!.status;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-probes-'));
    clock = new FakeClock();
    cache = createMemoryCache();
    answers = new Map();
    stops = [];
    onQueued = () => {};
    edged = undefined;
  });
  afterEach(async () => {
    await edged?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the readiness probe drives the Ready condition both ways', async () => {
    answers.set('readiness', false);
    await run({ readinessProbe: { ...probe, failureThreshold: 1 } });
    await tick(2 * S);
    expect(status().phase).toBe('Running');
    expect(status().containerStatuses![0]).toMatchObject({ started: true, ready: false });
    expect(ready()).toBe('False');
    answers.set('readiness', true);
    await tick(S);
    expect(ready()).toBe('True');
    expect(status().conditions!.find((c) => c.type === 'ContainersReady')!.status).toBe('True');
    answers.set('readiness', false);
    await tick(S);
    expect(ready()).toBe('False');
  });

  it('a changed probe result makes edged sync at once, not on its next tick', async () => {
    answers.set('readiness', false);
    await run({ readinessProbe: { ...probe, failureThreshold: 1 } }, {}, 60 * S);
    await tick(2 * S);
    expect(ready()).toBe('False');
    answers.set('readiness', true);
    const queued = new Promise<void>((resolve) => (onQueued = resolve));
    await clock.advance(S); // the next probe, no sync asked for
    await queued;
    expect(ready()).toBe('True');
  }, 5_000); // without the prober's onChange, `queued` never resolves

  it('a failing liveness probe kills the container (pod grace period); it is restarted at once with restartCount 1', async () => {
    answers.set('liveness', false);
    await run({ livenessProbe: { ...probe, failureThreshold: 3 } }, { terminationGracePeriodSeconds: 5 });
    await tick(2 * S); // running at 0.2 s; failures at 0.2 and 1.2 s
    expect(stops).toEqual([]);
    const first = status().containerStatuses![0]!.containerID!.replace('sim://', '');
    await tick(S); // third failure at 2.2 s: killed, and run again without a back-off (its first restart)
    expect(stops).toEqual([{ id: first, graceMs: 5 * S }]);
    answers.set('liveness', true);
    const c = status().containerStatuses![0]!;
    expect(c).toMatchObject({ restartCount: 1, state: { running: {} }, lastState: { terminated: {} } });
    expect(c.containerID).not.toBe(`sim://${first}`);
    await tick(5 * S);
    expect(stops).toHaveLength(1);
  });

  it("the probe's terminationGracePeriodSeconds wins over the pod's", async () => {
    answers.set('liveness', false);
    await run({ livenessProbe: { ...probe, failureThreshold: 1, terminationGracePeriodSeconds: 2 } }, { terminationGracePeriodSeconds: 60 });
    await tick(S);
    expect(stops.length).toBeGreaterThan(0);
    expect([...new Set(stops.map((s) => s.graceMs))]).toEqual([2 * S]);
  });

  it('a startup probe holds back readiness (and keeps started false) until it succeeds', async () => {
    answers.set('startup', false);
    answers.set('readiness', true);
    await run({ startupProbe: { ...probe, failureThreshold: 30 }, readinessProbe: probe });
    await tick(3 * S);
    expect(status().containerStatuses![0]).toMatchObject({ state: { running: {} }, started: false, ready: false });
    expect(ready()).toBe('False');
    answers.set('startup', true);
    await tick(S);
    expect(status().containerStatuses![0]).toMatchObject({ started: true, ready: true });
    expect(ready()).toBe('True');
  });

  it('a startup probe that fails failureThreshold times kills the container', async () => {
    answers.set('startup', false);
    await run({ startupProbe: { ...probe, failureThreshold: 2 } });
    await tick(S);
    expect(stops).toEqual([]);
    await tick(S);
    expect(stops).toHaveLength(1);
  });
});
