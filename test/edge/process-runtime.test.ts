import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../edge/runtime/proc-stat.js';
import { PROCESS_STATE_FILE, ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import type { ProcessState } from '../../edge/runtime/process-state.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { eventually } from '../support/eventually.js';
import { nodeScript } from './process-workloads.js';
import { testNetwork } from '../support/test-network.js';

describe('ProcessRuntime', () => {
  let dir: string;
  let clock: FakeClock;
  let opened: ProcessRuntime[];
  let strays: ChildProcess[];
  const open = async (options: { reboot?: boolean; maxLogBytes?: number } = {}) => {
    for (const old of opened) old.close();
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, ...options });
    opened.push(runtime);
    return runtime;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-proc-'));
    clock = new FakeClock();
    opened = [];
    strays = [];
  });
  afterEach(async () => {
    await open({ reboot: true }); // kills every container process still recorded
    for (const child of strays) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a sandbox its own address from the network plugin, which a process can bind; DEL on removal; hostNetwork gets the node address', async () => {
    const network = testNetwork();
    const runtime = await ProcessRuntime.open({ network, hostIp: '127.0.0.1', dataDir: dir, clock });
    opened.push(runtime);
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    expect(sandbox.ip).toBe('127.64.1.2');
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, sandbox.ip, () => resolve()));
    server.close();
    const host = await runtime.runSandbox({ podUid: 'u2', name: 'h', namespace: 'default', hostNetwork: true });
    expect(host).toMatchObject({ ip: '127.0.0.1', hostNetwork: true });
    await runtime.removeSandbox(sandbox.id);
    await expect(network.check({ containerId: sandbox.id })).rejects.toMatchObject({ code: 'NotFound' });
    await runtime.removeSandbox(host.id);
  });

  async function start(runtime: ProcessRuntime, container: { command?: string[]; env?: Record<string, string>; workingDir?: string }) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...container });
    await runtime.startContainer(id);
    return id;
  }
  const infoOf = async (runtime: ProcessRuntime, id: string) => (await runtime.listContainers()).find((c) => c.id === id);
  const texts = async (runtime: ProcessRuntime, id: string) => (await runtime.logs(id)).map((l) => l.text);
  const untilLogged = (runtime: ProcessRuntime, id: string, text: string) =>
    eventually(clock, async () => (await texts(runtime, id)).includes(text), `log line ${text}`, { stepMs: 1 });
  const savedPid = async (id: string) => {
    const state = JSON.parse(await readFile(join(dir, PROCESS_STATE_FILE), 'utf8')) as ProcessState;
    return state.containers.find((c) => c.id === id)!.pid!;
  };
  const untilGone = (pid: number) => eventually(clock, async () => (await processStartTime(pid)) === undefined, `pid ${pid} gone`);

  it('stop sends SIGTERM, which the container may answer its own way', async () => {
    const runtime = await open();
    const id = await start(runtime, nodeScript(`process.on('SIGTERM', () => { console.log('bye'); process.exit(7); }); console.log('up'); setInterval(() => {}, 1000);`));
    await untilLogged(runtime, id, 'up');
    await runtime.stopContainer(id, 30_000); // no clock needed: the container ends at once
    expect(await infoOf(runtime, id)).toMatchObject({ state: 'exited', exitCode: 7, reason: 'Error' });
    expect(await texts(runtime, id)).toEqual(['up', 'bye']);
  });

  it('stop sends SIGKILL to a container that ignores SIGTERM once the grace period is over', async () => {
    const runtime = await open();
    const id = await start(runtime, nodeScript(`process.on('SIGTERM', () => console.log('ignored')); console.log('up'); setInterval(() => {}, 1000);`));
    await untilLogged(runtime, id, 'up');
    const pid = await savedPid(id);
    let stopped = false;
    const graceEnds = clock.now() + 10_000;
    const stopping = runtime.stopContainer(id, 10_000).then(() => (stopped = true));
    await untilLogged(runtime, id, 'ignored');
    await clock.advance(graceEnds - 1 - clock.now());
    await wallDelay(50);
    expect(stopped).toBe(false);
    expect(await processStartTime(pid)).toBeDefined();
    await clock.advance(1);
    await stopping;
    expect(await infoOf(runtime, id)).toMatchObject({ state: 'exited', exitCode: 137, reason: 'Error' });
  });

  it('runs command with env and workingDir, and logs stdout and stderr lines in order', async () => {
    const runtime = await open();
    const script = `console.log(process.env.GREETING); console.error(process.cwd()); console.log('a\\nb'); process.stdout.write('no newline');`;
    const id = await start(runtime, { ...nodeScript(script), env: { GREETING: 'hi' }, workingDir: dir });
    await eventually(clock, async () => (await infoOf(runtime, id))?.state === 'exited', 'exit');
    const lines = await runtime.logs(id);
    expect(lines.map((l) => l.text).sort()).toEqual(['hi', dir, 'a', 'b', 'no newline'].sort());
    expect(lines.filter((l) => l.text !== dir).map((l) => l.text)).toEqual(['hi', 'a', 'b', 'no newline']);
    expect(await infoOf(runtime, id)).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });

  it('rotates the log past maxLogBytes, keeping one old file', async () => {
    const runtime = await open({ maxLogBytes: 200 });
    const id = await start(runtime, nodeScript(`for (let i = 0; i < 40; i++) console.log('line ' + i);`));
    await eventually(clock, async () => (await infoOf(runtime, id))?.state === 'exited', 'exit');
    const lines = await texts(runtime, id);
    expect(lines.length).toBeLessThan(40);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines).toEqual(lines.map((_, i) => `line ${40 - lines.length + i}`));
    expect((await stat(join(dir, 'containers', `${id}.log.1`))).size).toBeLessThanOrEqual(200);
  });

  it('a container without a command cannot run: exit code 127, ContainerCannotRun', async () => {
    const runtime = await open();
    const id = await start(runtime, {});
    expect(await infoOf(runtime, id)).toMatchObject({ state: 'exited', exitCode: 127, reason: 'ContainerCannotRun' });
  });

  it('an adopted process that exits later keeps its exit code (the shim records it)', async () => {
    const first = await open();
    const id = await start(first, nodeScript(`console.log('up'); setTimeout(() => process.exit(4), 300);`));
    const second = await open();
    expect((await infoOf(second, id))?.state).toBe('running');
    await eventually(clock, async () => (await infoOf(second, id))?.state === 'exited', 'exit');
    expect(await infoOf(second, id)).toMatchObject({ exitCode: 4, reason: 'Error' });
  });

  it('an adopted process killed outright ends with exit code 255, Unknown', async () => {
    const first = await open();
    const id = await start(first, nodeScript(`setInterval(() => {}, 1000);`));
    const second = await open();
    expect((await infoOf(second, id))?.state).toBe('running');
    process.kill(-(await savedPid(id)), 'SIGKILL');
    await eventually(clock, async () => (await infoOf(second, id))?.state === 'exited', 'exit');
    expect(await infoOf(second, id)).toMatchObject({ exitCode: 255, reason: 'Unknown' });
  });

  it('never adopts a recycled pid: same pid, other start time', async () => {
    const stray = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    strays.push(stray);
    const pid = stray.pid!;
    const startTime = await processStartTime(pid);
    const record = (start: string | undefined) => ({ id: 'c1', sandboxId: 's1', podUid: 'u1', name: 'app', attempt: 0, image: '', createdAt: 1, startedAt: 2, spec: {}, pid, startTime: start });
    /** The runtime's state, and the pid file its shim would have written once let go. */
    const written = async (start: string | undefined) => {
      const state: ProcessState = { sandboxes: [], containers: [record(start)] };
      await writeFile(join(dir, PROCESS_STATE_FILE), JSON.stringify(state));
      await writeFile(join(dir, 'containers', 'c1.pid'), JSON.stringify({ pid, startTime: start }));
    };

    await open();
    await written(startTime);
    expect(await infoOf(await open(), 'c1')).toMatchObject({ state: 'running' }); // the control: same start time
    await written(`${startTime}0`);
    expect(await infoOf(await open(), 'c1')).toMatchObject({ state: 'exited', exitCode: 255, reason: 'Unknown' });
    await written(`${startTime}0`);
    await open({ reboot: true });
    await wallDelay(50);
    expect(await processStartTime(pid)).toBe(startTime); // a reboot kills only what it recorded
  });

  it('a shim recorded with its log adopts as running (one from before pid files); without, it never ran: created again, stopped', async () => {
    await open();
    const shim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
    strays.push(shim);
    const pid = shim.pid!;
    const startTime = await processStartTime(pid);
    const state: ProcessState = { sandboxes: [], containers: [{ id: 'c1', sandboxId: 's1', podUid: 'u1', name: 'app', attempt: 0, image: '', createdAt: 1, startedAt: 2, spec: {}, pid, startTime }] };
    await writeFile(join(dir, PROCESS_STATE_FILE), JSON.stringify(state));
    await writeFile(join(dir, 'containers', 'c1.log'), '');
    expect(await infoOf(await open(), 'c1')).toMatchObject({ state: 'running' });

    await rm(join(dir, 'containers', 'c1.log'));
    expect(await infoOf(await open(), 'c1')).toMatchObject({ state: 'created' });
    await untilGone(pid);
  });

  it('a reboot kills the processes that still run', async () => {
    const first = await open();
    const id = await start(first, nodeScript(`setInterval(() => {}, 1000);`));
    const pid = await savedPid(id);
    await open({ reboot: true });
    await untilGone(pid);
  });
});
