import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { RuntimeByHandler } from '../../edge/runtime/runtime-by-handler.js';
import type { Runtime } from '../../edge/runtime/runtime.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { AgentRuntime } from '../../edge/runtime/agent-runtime.js';
import { derivePodStatus } from '../../edge/edged/pod-status.js';
import { pod } from './fixtures.js';
import { testNetwork } from '../support/test-network.js';

describe('RuntimeByHandler', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const sim = async (clock: FakeClock): Promise<SimRuntime> => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-by-handler-'));
    dirs.push(dir);
    return SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0 });
  };

  it('runs a sandbox on the runtime its handler names, and its containers there too', async () => {
    const clock = new FakeClock();
    const a = await sim(clock);
    const b = await sim(clock);
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', a], ['other', b]]), 'sim');
    const plain = await runtime.runSandbox({ podUid: 'u1', name: 'p1', namespace: 'default' });
    const other = await runtime.runSandbox({ podUid: 'u2', name: 'p2', namespace: 'default', runtimeHandler: 'other' });
    const id = await runtime.createContainer(other.id, { name: 'c', attempt: 0 });
    await runtime.startContainer(id);
    expect((await a.listSandboxes()).map((s) => s.id)).toEqual([plain.id]);
    expect((await b.listContainers()).map((c) => c.id)).toEqual([id]);
    expect((await runtime.listSandboxes()).map((s) => s.podUid).sort()).toEqual(['u1', 'u2']);
    const unknown = await runtime.runSandbox({ podUid: 'u3', name: 'p3', namespace: 'default', runtimeHandler: 'gvisor' }).catch((e: unknown) => e);
    expect((unknown as Error).message).toBe('no runtime handler "gvisor" on this node (known: sim, other)');
  });

  it('finds what another edge process made by listing, and says NotFound for the rest', async () => {
    const clock = new FakeClock();
    const a = await sim(clock);
    const b = await sim(clock);
    const made = await b.runSandbox({ podUid: 'u1', name: 'p1', namespace: 'default' });
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', a], ['other', b]]), 'sim');
    await runtime.stopSandbox(made.id);
    expect((await b.listSandboxes())[0]?.state).toBe('notready');
    expect(isKedgeError(await runtime.removeSandbox('nope').catch((e: unknown) => e), 'NotFound')).toBe(true);
  });

  it('sends exec and simulatedProbe to the runtime that made the container; a real runtime has no simulated answer', async () => {
    const clock = new FakeClock();
    const dir = await mkdtemp(join(tmpdir(), 'kedge-by-handler-'));
    dirs.push(dir);
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', await sim(clock)], ['process', await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock })]]), 'sim');
    const start = async (handler: string) => {
      const sandbox = await runtime.runSandbox({ podUid: handler, name: handler, namespace: 'default', runtimeHandler: handler });
      const id = await runtime.createContainer(sandbox.id, { name: 'c', attempt: 0 });
      await runtime.startContainer(id); // the process one has no command: it ends at once
      return id;
    };
    const simulated = await start('sim');
    const real = await start('process');
    expect(await runtime.exec(simulated, ['true'], 1000)).toEqual({ exitCode: 0, output: '', timedOut: false });
    expect(await runtime.simulatedProbe(simulated, 'readiness')).toBe(true);
    await expect(runtime.exec(real, ['true'], 1000)).rejects.toMatchObject({ code: 'Conflict' });
    expect(await runtime.simulatedProbe(real, 'readiness')).toBeUndefined();
    await expect(runtime.exec('nope', ['true'], 1000)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('lists each container with the runtime that runs it, and each sandbox with its handler: containerIDs say process://, sim://, kedge-agent://', async () => {
    const clock = new FakeClock();
    const dir = await mkdtemp(join(tmpdir(), 'kedge-by-handler-'));
    dirs.push(dir);
    const agents = new AgentRuntime({ components: () => [], clock, hostIp: '127.0.0.1' });
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', await sim(clock)], ['process', await ProcessRuntime.open({ dataDir: dir, clock, network: testNetwork() })], ['kedge-agent', agents]]), 'sim');
    const idOf: Record<string, string> = {};
    for (const handler of ['sim', 'process', 'kedge-agent']) {
      const sandbox = await runtime.runSandbox({ podUid: handler, name: handler, namespace: 'default', ...(handler === 'sim' ? {} : { runtimeHandler: handler }) });
      idOf[handler] = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0 });
    }
    const containers = await runtime.listContainers();
    expect(Object.fromEntries(containers.map((c) => [c.podUid, c.runtime]))).toEqual({ sim: 'sim', process: 'process', 'kedge-agent': 'kedge-agent' });
    expect(Object.fromEntries((await runtime.listSandboxes()).map((s) => [s.podUid, s.runtimeHandler]))).toEqual({ sim: undefined, process: 'process', 'kedge-agent': 'kedge-agent' });
    for (const handler of ['sim', 'process', 'kedge-agent']) {
      const sandbox = (await runtime.listSandboxes()).find((s) => s.podUid === handler)!;
      const status = derivePodStatus({ pod: pod('p', handler), sandbox, containers, runtimeName: runtime.name, hostIP: '127.0.0.1', now: clock.now() });
      expect(status.containerStatuses![0]!.containerID).toBe(`${handler}://${idOf[handler]}`);
    }
  });

  it('sends exec streams, attach and port-forward to the runtime that made them, and refuses for a runtime without them', async () => {
    const clock = new FakeClock();
    const a = await sim(clock);
    const bare = Object.assign(Object.create(a) as Runtime, { name: 'bare', execStream: undefined, attach: undefined, portForward: undefined });
    const runtime = new RuntimeByHandler(new Map<string, Runtime>([['sim', a]]), 'sim');
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p1', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'c', attempt: 0 });
    await runtime.startContainer(id);
    await clock.advance(0);
    const session = await runtime.execStream(id, ['echo', 'hi'], { stdin: false, stdout: true, stderr: false, tty: false });
    let out = '';
    session.stdout!.on('data', (d: Buffer) => (out += d));
    expect(await session.exited).toBe(0);
    expect(out).toBe('hi\n');
    const attached = await runtime.attach(id, { stdin: false, stdout: true, stderr: false, tty: false });
    attached.kill();
    await expect(runtime.portForward(sandbox.id, 80)).rejects.toThrow('listen on no port');
    const withBare = new RuntimeByHandler(new Map<string, Runtime>([['bare', bare]]), 'bare');
    await expect(withBare.execStream(id, ['true'], { stdin: false, stdout: true, stderr: false, tty: false })).rejects.toThrow('the bare runtime cannot exec');
  });
});
