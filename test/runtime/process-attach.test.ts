import { createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { FakeClock } from '../../shared/clock.js';
import { eventually } from '../support/eventually.js';
import { testNetwork } from '../support/test-network.js';
import { nodeScript } from '../edge/process-workloads.js';
import { PIPES, textOf, WITH_STDIN } from './stream-support.js';

describe('ProcessRuntime attach and portForward', () => {
  let dir: string;
  let clock: FakeClock;
  let runtime: ProcessRuntime;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-attach-'));
    clock = new FakeClock();
    runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock });
  });
  afterEach(async () => {
    runtime.close();
    await (await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, reboot: true })).close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(config: { command: string[]; stdin?: boolean }) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...config });
    await runtime.startContainer(id);
    return { sandbox, id };
  }

  it("gives the container's output from now on, writes to its stdin, and ends with its exit code", async () => {
    const echo = `process.stdin.on('data', (d) => { const t = String(d).trim(); if (t === 'bye') process.exit(4); console.log('got ' + t); console.error('err ' + t); });`;
    const { id } = await start({ ...nodeScript(echo), stdin: true });
    const session = await runtime.attach(id, WITH_STDIN);
    const [out, err] = [textOf(session.stdout), textOf(session.stderr)];
    session.stdin!.write('hello\n');
    await eventually(clock, () => out.text() === 'got hello\n' && err.text() === 'err hello\n', 'the echo', { stepMs: 100 });
    session.stdin!.write('bye\n');
    const exited = session.exited;
    await eventually(clock, async () => (await runtime.listContainers())[0]?.state === 'exited', 'the exit', { stepMs: 100 });
    expect(await exited).toBe(4);
  });

  it('closes the stdin FIFO once, whenever the garbage collector runs', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const errors: Error[] = [];
    const watch = (err: Error): void => void errors.push(err);
    process.on('uncaughtExceptionMonitor', watch);
    try {
      const { id } = await start({ ...nodeScript('process.stdin.resume()'), stdin: true });
      const session = await runtime.attach(id, WITH_STDIN);
      session.kill();
      await session.exited;
      await new Promise((resolve) => setImmediate(resolve)); // the socket has closed its descriptor
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      process.off('uncaughtExceptionMonitor', watch);
    }
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('refuses stdin for a container created without one, and detaches on kill', async () => {
    const { id } = await start(nodeScript('setInterval(() => {}, 1000)'));
    await expect(runtime.attach(id, WITH_STDIN)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('stdin: true') });
    const session = await runtime.attach(id, PIPES);
    session.kill();
    expect(await session.exited).toBe(0);
    expect((await runtime.listContainers())[0]?.state).toBe('running');
  });

  it("connects to a port at the pod's address, and says so when the port refuses", async () => {
    const { sandbox } = await start(nodeScript('setInterval(() => {}, 1000)'));
    const server: Server = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => server.listen(0, sandbox.ip, resolve));
    const port = (server.address() as { port: number }).port;
    const socket = (await runtime.portForward(sandbox.id, port)) as Socket;
    socket.end('ping');
    expect(await new Promise<string>((resolve) => { let t = ''; socket.on('data', (d) => (t += d)).on('end', () => resolve(t)); })).toBe('ping');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(runtime.portForward(sandbox.id, port)).rejects.toThrow(
      `error forwarding port ${port} to pod ${sandbox.id}, uid : dial tcp4 ${sandbox.ip}:${port}: connect: connection refused`,
    );
  });
});
