import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { behaviourFrom, containerAt, nextStartOf, type SimContainerRecord } from '../../edge/runtime/sim-behaviour.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';

/** A container started at 0 that runs at 1000 (start-delay 1s), with these annotations too. */
const started = (annotations: Record<string, string>, stoppedAt?: number): SimContainerRecord => ({
  id: 'c1',
  sandboxId: 's1',
  podUid: 'u1',
  name: 'app',
  attempt: 0,
  image: '',
  createdAt: 0,
  startRequestedAt: 0,
  behaviour: behaviourFrom({ 'kedge.io/start-delay': '1s', ...annotations }, 0),
  ...(stoppedAt === undefined ? {} : { stoppedAt }),
});

describe('sim annotation durations follow --time-scale', () => {
  it('divides every duration, not the exit code', () => {
    const annotations = { 'kedge.io/start-delay': '3s', 'kedge.io/crash-after': '1m', 'kedge.io/ready-after': '2s', 'kedge.io/ready-flap': '10s', 'kedge.io/exit-code': '7' };
    expect(behaviourFrom(annotations, 20, 10)).toEqual({ startDelayMs: 300, crashAfterMs: 6000, readyAfterMs: 200, readyFlapMs: 1000, exitCode: 7 });
    expect(behaviourFrom(annotations, 20)).toEqual({ startDelayMs: 3000, crashAfterMs: 60_000, readyAfterMs: 2000, readyFlapMs: 10_000, exitCode: 7 });
  });
});

describe('kedge.io/ready-flap (pure)', () => {
  const flapping = started({ 'kedge.io/ready-after': '2s', 'kedge.io/ready-flap': '10s' });

  it.each([
    [999, false, 1000], // still starting: comes up at 1000
    [1000, false, 3000], // running, ready after 2 s
    [2999, false, 3000],
    [3000, true, 13_000], // ready for 10 s ...
    [12_999, true, 13_000],
    [13_000, false, 23_000], // ... then not ready for 10 s ...
    [23_000, true, 33_000], // ... and so on
    [33_000, false, 43_000],
  ])('at %i: ready %s, edged looks again at %i', (now, ready, next) => {
    expect(containerAt(flapping, now).ready).toBe(ready);
    expect(nextStartOf(flapping, now)).toBe(next);
  });

  it('stops flipping once the container is stopped or has crashed', () => {
    expect(nextStartOf(started({ 'kedge.io/ready-flap': '10s' }, 15_000), 12_000)).toBeUndefined(); // next flip (21 000) after the stop
    expect(containerAt(started({ 'kedge.io/ready-flap': '10s' }, 15_000), 16_000)).toMatchObject({ state: 'exited', ready: false });
    const crashing = started({ 'kedge.io/ready-flap': '10s', 'kedge.io/crash-after': '15s' });
    expect(nextStartOf(crashing, 11_000)).toBeUndefined(); // the flip at 21 000 comes after the crash at 16 000
  });

  it('without the annotation (or with a malformed or zero one) readiness stays once reached', () => {
    for (const annotations of [{}, { 'kedge.io/ready-flap': 'often' }, { 'kedge.io/ready-flap': '0s' }] as Record<string, string>[]) {
      const record = started(annotations);
      expect(containerAt(record, 1_000_000).ready).toBe(true);
      expect(nextStartOf(record, 1_000_000)).toBeUndefined();
    }
  });
});

describe('SimRuntime probes and exec', () => {
  let dir: string;
  let clock: FakeClock;
  let runtime: SimRuntime;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-sim-probe-'));
    clock = new FakeClock();
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0 });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function startPod(annotations: Record<string, string>) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default', annotations });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0 });
    await runtime.startContainer(id);
    return id;
  }
  const probes = async (id: string) => ({
    liveness: await runtime.simulatedProbe(id, 'liveness'),
    readiness: await runtime.simulatedProbe(id, 'readiness'),
    startup: await runtime.simulatedProbe(id, 'startup'),
  });

  it('answers readiness as simulated (ready-after, then ready-flap); liveness and startup while it runs', async () => {
    const id = await startPod({ 'kedge.io/ready-after': '1s', 'kedge.io/ready-flap': '5s', 'kedge.io/crash-after': '20s' });
    expect(await probes(id)).toEqual({ liveness: true, readiness: false, startup: true });
    await clock.advance(1000);
    expect(await probes(id)).toEqual({ liveness: true, readiness: true, startup: true });
    expect(runtime.nextStartAt()).toBe(clock.now() + 5000);
    await clock.advance(5000);
    expect(await probes(id)).toEqual({ liveness: true, readiness: false, startup: true });
    await clock.advance(14_000); // crashed
    expect(await probes(id)).toEqual({ liveness: false, readiness: false, startup: false });
  });

  it('every probe fails before the container runs; an unknown container is NotFound', async () => {
    const id = await startPod({ 'kedge.io/start-delay': '1s' });
    expect(await probes(id)).toEqual({ liveness: false, readiness: false, startup: false });
    await expect(runtime.simulatedProbe('nope', 'liveness')).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('exec runs nothing: exit code 0 and no output while running, Conflict once stopped', async () => {
    const id = await startPod({});
    expect(await runtime.exec(id, ['cat', '/etc/hostname'], 1000)).toEqual({ exitCode: 0, output: '', timedOut: false });
    await runtime.stopContainer(id, 0);
    await expect(runtime.exec(id, ['true'], 1000)).rejects.toMatchObject({ code: 'Conflict' });
  });
});
