import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import type { ContainerSession } from '../../edge/runtime/runtime.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';
import { waitFor } from '../support/wait.js';
import { nodeScript } from '../edge/process-workloads.js';
import { finished, groupExists, PIPES, textOf, TTY, WITH_STDIN } from './stream-support.js';

/** The process group of a pid, from /proc/<pid>/stat (field 5). */
async function groupOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

describe.each([
  ['with the python helper', undefined],
  ['without python', false as const],
])('ProcessRuntime.execStream %s', (_title, python) => {
  let dir: string;
  let runtime: ProcessRuntime;
  let sessions: ContainerSession[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-exec-'));
    runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock(), python });
    sessions = [];
  });
  afterEach(async () => {
    for (const s of sessions) s.kill();
    runtime.close();
    await (await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock(), reboot: true })).close();
    await rm(dir, { recursive: true, force: true });
  });

  async function container(env: Record<string, string> = {}, workingDir?: string): Promise<string> {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, env, workingDir, ...nodeScript('setInterval(() => {}, 1000)') });
    await runtime.startContainer(id);
    return id;
  }
  const exec = async (id: string, command: string[], options = PIPES) => {
    const session = await runtime.execStream(id, command, options);
    sessions.push(session);
    return session;
  };

  it("runs with the container's env and working directory, and ends with its exit code", async () => {
    const id = await container({ POD_IP: '127.64.1.2', GREETING: 'hi' }, tmpdir());
    const session = await exec(id, ['sh', '-c', 'echo "$GREETING $POD_IP"; pwd; echo oops >&2; exit 3']);
    expect(await finished(session)).toEqual({ exitCode: 3, stdout: `hi 127.64.1.2\n${tmpdir()}\n`, stderr: 'oops\n' });
  });

  it('passes stdin through, its end an end of file', async () => {
    const session = await exec(await container(), ['cat'], WITH_STDIN);
    session.stdin!.end('round trip\n');
    expect(await finished(session)).toMatchObject({ exitCode: 0, stdout: 'round trip\n' });
  });

  it('says a command that is not there ends with 127', async () => {
    const session = await exec(await container(), ['no-such-command-here']);
    expect((await finished(session)).exitCode).toBe(127);
  });

  it('refuses a container that does not run', async () => {
    const sandbox = await runtime.runSandbox({ podUid: 'u2', name: 'q', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'idle', attempt: 0, command: ['true'] });
    await expect(runtime.execStream(id, ['true'], PIPES)).rejects.toMatchObject({ code: 'NotFound', message: 'container not found ("idle")' });
  });

  it('gives a tty: the command sees a terminal', async () => {
    const session = await exec(await container(), ['sh', '-c', 'test -t 0 && test -t 1 && echo terminal'], TTY);
    const result = await finished(session);
    expect(result).toMatchObject({ exitCode: 0 });
    expect(result.stdout).toContain('terminal');
  });

  it('kill ends the whole process group, what the command started too', async () => {
    const session = await exec(await container(), ['sh', '-c', 'echo $$; sleep 300 & sleep 300']);
    const out = textOf(session.stdout);
    const pid = Number(await waitFor(() => out.text().split('\n')[0], 'the shell pid'));
    const group = await groupOf(pid);
    session.stdout!.pause(); // unread output does not hold the end of a killed session
    session.kill();
    expect(await session.exited).toBe(137);
    await waitFor(() => !groupExists(group), `group ${group} gone`);
  });

  it('a reader that stops reading stops the command: its output is not buffered without bound', async () => {
    const progress = join(dir, 'progress');
    const script = `i=0; while [ $i -lt 256 ]; do head -c 65536 /dev/zero; i=$((i+1)); echo $i > ${progress}; done`;
    const session = await exec(await container(), ['sh', '-c', script]);
    session.stdout!.pause();
    const written = async () => Number(await readFile(progress, 'utf8').catch(() => '0'));
    await waitFor(async () => (await written()) > 0, 'some output');
    await wallDelay(300);
    const stalled = await written();
    await wallDelay(200);
    expect(await written()).toBe(stalled);
    expect(stalled).toBeLessThan(32); // under 2 MiB of 16: a pipe's and a stream's worth
    let bytes = 0;
    session.stdout!.on('data', (chunk: Buffer) => (bytes += chunk.length));
    session.stdout!.resume();
    expect(await session.exited).toBe(0);
    expect(bytes).toBe(256 * 65536);
  });
});

describe('ProcessRuntime.execStream with the python helper', () => {
  let dir: string;
  let runtime: ProcessRuntime;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-tty-'));
    runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock() });
  });
  afterEach(async () => {
    runtime.close();
    await (await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock(), reboot: true })).close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sizes the terminal: at the start, and again on a resize', async () => {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript('setInterval(() => {}, 1000)') });
    await runtime.startContainer(id);
    const session = await runtime.execStream(id, ['sh', '-c', 'stty size; read line; stty size'], TTY);
    session.resize!(100, 30);
    const out = textOf(session.stdout);
    await waitFor(() => out.text().includes('30 100'), 'the first size');
    session.resize!(120, 40);
    await wallDelay(100); // the resize goes by another way than stdin
    session.stdin!.write('go\n');
    expect(await session.exited).toBe(0);
    expect(out.text()).toContain('40 120');
  });
});
