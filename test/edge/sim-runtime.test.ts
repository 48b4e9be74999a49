import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkPlugin } from '../../edge/network/cni/network-plugin.js';
import { parseDuration } from '../../edge/runtime/sim-behaviour.js';
import { SIM_STATE_FILE, SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1.5s', 1500],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2', undefined],
    ['-1s', undefined],
    ['soon', undefined],
  ])('%s → %s', (text, ms) => expect(parseDuration(text)).toBe(ms));
});

describe('SimRuntime', () => {
  let dir: string;
  let clock: FakeClock;
  let network: NetworkPlugin;
  const open = (reboot = false) => SimRuntime.open({ network, hostIp: '192.168.1.20', dataDir: dir, clock, defaultStartMs: 200, reboot });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-sim-'));
    clock = new FakeClock();
    network = testNetwork();
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function startPod(runtime: SimRuntime, annotations: Record<string, string> = {}) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default', annotations });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', image: 'nginx', attempt: 0 });
    await runtime.startContainer(id);
    return { sandbox, id };
  }
  const stateOf = async (runtime: SimRuntime, id: string) => (await runtime.listContainers()).find((c) => c.id === id);

  it('takes kedge.io/start-delay to go from created to running, starting meanwhile', async () => {
    const runtime = await open();
    const { id } = await startPod(runtime, { 'kedge.io/start-delay': '2s' });
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'created', starting: true });
    await clock.advance(1999);
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'created', starting: true });
    await clock.advance(1);
    const running = await stateOf(runtime, id);
    expect(running).toMatchObject({ state: 'running', startedAt: clock.now(), ready: true });
    expect(running?.starting).toBeUndefined();
  });

  it('a container created and not started is not starting: it never runs by itself', async () => {
    const runtime = await open();
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', image: 'nginx', attempt: 0 });
    await clock.advance(3_600_000);
    const info = await stateOf(runtime, id);
    expect(info?.state).toBe('created');
    expect(info?.starting).toBeUndefined();
  });

  it('uses the default start delay without the annotation', async () => {
    const runtime = await open();
    const { id } = await startPod(runtime);
    await clock.advance(199);
    expect((await stateOf(runtime, id))?.state).toBe('created');
    await clock.advance(1);
    expect((await stateOf(runtime, id))?.state).toBe('running');
  });

  it('exits with kedge.io/exit-code after kedge.io/crash-after', async () => {
    const runtime = await open();
    const { id } = await startPod(runtime, { 'kedge.io/start-delay': '100ms', 'kedge.io/crash-after': '1s', 'kedge.io/exit-code': '3' });
    await clock.advance(1099);
    expect((await stateOf(runtime, id))?.state).toBe('running');
    await clock.advance(1);
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'exited', exitCode: 3, reason: 'Error', finishedAt: clock.now(), ready: false });
  });

  it('is not ready before kedge.io/ready-after', async () => {
    const runtime = await open();
    const { id } = await startPod(runtime, { 'kedge.io/start-delay': '0ms', 'kedge.io/ready-after': '5s' });
    await clock.advance(4999);
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'running', ready: false });
    await clock.advance(1);
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'running', ready: true });
  });

  it('stop ends a container with exit 0; remove forgets it', async () => {
    const runtime = await open();
    const { id, sandbox } = await startPod(runtime);
    await clock.advance(500);
    await runtime.stopContainer(id, 1000);
    expect(await stateOf(runtime, id)).toMatchObject({ state: 'exited', exitCode: 0 });
    await runtime.removeContainer(id);
    await runtime.removeSandbox(sandbox.id);
    expect(await runtime.listContainers()).toEqual([]);
    expect(await runtime.listSandboxes()).toEqual([]);
  });

  it('gives each sandbox its address from the network plugin (ADD), releases it on removal (DEL); hostNetwork gets the node address', async () => {
    const runtime = await open();
    const a = await runtime.runSandbox({ podUid: 'a', name: 'a', namespace: 'default' });
    const b = await runtime.runSandbox({ podUid: 'b', name: 'b', namespace: 'default' });
    expect([a.ip, b.ip]).toEqual(['127.64.1.2', '127.64.1.3']);
    expect(await network.check({ containerId: a.id })).toEqual({ ip: '127.64.1.2', cidr: '127.64.1.0/24' });
    await runtime.removeSandbox(a.id);
    await expect(network.check({ containerId: a.id })).rejects.toMatchObject({ code: 'NotFound' });
    expect((await runtime.runSandbox({ podUid: 'c', name: 'c', namespace: 'default' })).ip).toBe('127.64.1.4'); // round robin
    const host = await runtime.runSandbox({ podUid: 'h', name: 'h', namespace: 'default', hostNetwork: true });
    expect(host).toMatchObject({ ip: '192.168.1.20', hostNetwork: true });
    await runtime.removeSandbox(host.id);
    expect((await runtime.runSandbox({ podUid: 'd', name: 'd', namespace: 'default' })).ip).toBe('127.64.1.5');
  });

  it('creates no sandbox while the network plugin refuses ADD', async () => {
    const runtime = await open();
    await network.stop();
    await expect(runtime.runSandbox({ podUid: 'a', name: 'a', namespace: 'default' })).rejects.toThrow(/NetworkPluginNotReady message:kedge-cni is stopped/);
    expect(await runtime.listSandboxes()).toEqual([]);
  });

  it('a restarted edge adopts running containers; they keep their time line', async () => {
    const first = await open();
    const { id, sandbox } = await startPod(first, { 'kedge.io/crash-after': '10s' });
    await clock.advance(1000);
    const saved = JSON.parse(await readFile(join(dir, SIM_STATE_FILE), 'utf8'));
    expect(saved.containers).toHaveLength(1);
    const second = await open();
    expect(await second.listSandboxes()).toEqual([sandbox]);
    expect(await stateOf(second, id)).toMatchObject({ state: 'running', startedAt: clock.now() - 800 });
    await clock.advance(10_000);
    expect((await stateOf(second, id))?.state).toBe('exited');
  });

  it('has every operation of a batch on disk when it resolves', async () => {
    const runtime = await open();
    const started = await Promise.all(
      ['u1', 'u2', 'u3'].map(async (podUid) => {
        const sandbox = await runtime.runSandbox({ podUid, name: podUid, namespace: 'default' });
        const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0 });
        await runtime.startContainer(id);
        return id;
      }),
    );
    // What a kill -9 right now would leave: every started container, with its start.
    const saved: { containers: { id: string; startRequestedAt?: number }[] } = JSON.parse(await readFile(join(dir, SIM_STATE_FILE), 'utf8'));
    expect(saved.containers.map((c) => [c.id, c.startRequestedAt])).toEqual(started.map((id) => [id, clock.now()]));
  });

  it('tells when a starting container will run, then be ready; nothing once it is, or once stopped', async () => {
    const runtime = await open();
    expect(runtime.nextStartAt()).toBeUndefined();
    const t0 = clock.now();
    const { id } = await startPod(runtime, { 'kedge.io/start-delay': '2s', 'kedge.io/ready-after': '1s' });
    expect(runtime.nextStartAt()).toBe(t0 + 2000);
    await clock.advance(2000);
    expect(runtime.nextStartAt()).toBe(t0 + 3000);
    await clock.advance(1000);
    expect(runtime.nextStartAt()).toBeUndefined();
    await runtime.stopContainer(id, 0);
    const other = await runtime.createContainer((await runtime.listSandboxes())[0]!.id, { name: 'side', attempt: 0 });
    await runtime.startContainer(other);
    await runtime.stopContainer(other, 0);
    expect(runtime.nextStartAt()).toBeUndefined();
    // One that fails as it comes up: edged looks then too.
    const crashy = await startPod(runtime, { 'kedge.io/crash-after': '0s' });
    expect(runtime.nextStartAt()).toBe(clock.now() + 200);
    await clock.advance(200);
    expect((await stateOf(runtime, crashy.id))?.state).toBe('exited');
    expect(runtime.nextStartAt()).toBeUndefined();
  });

  it('reboot: true wipes every container', async () => {
    await startPod(await open());
    const rebooted = await open(true);
    expect(await rebooted.listSandboxes()).toEqual([]);
    expect(await rebooted.listContainers()).toEqual([]);
  });
});
