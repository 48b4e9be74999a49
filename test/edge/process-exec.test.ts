import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../edge/runtime/proc-stat.js';
import { EXEC_OUTPUT_LIMIT } from '../../edge/runtime/process-exec.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { waitFor } from '../support/wait.js';
import { nodeScript } from './process-workloads.js';
import { testNetwork } from '../support/test-network.js';

describe('ProcessRuntime exec', () => {
  let dir: string;
  let clock: FakeClock;
  let opened: ProcessRuntime[];
  const open = async (options: { reboot?: boolean } = {}) => {
    for (const old of opened) old.close();
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, ...options });
    opened.push(runtime);
    return runtime;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-exec-'));
    clock = new FakeClock();
    opened = [];
  });
  afterEach(async () => {
    await open({ reboot: true }); // kills every container process still recorded
    await rm(dir, { recursive: true, force: true });
  });

  /** A container that runs until killed, started with `env` and `workingDir`. */
  async function running(runtime: ProcessRuntime, spec: { env?: Record<string, string>; workingDir?: string } = {}) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript('setInterval(() => {}, 1000);'), ...spec });
    await runtime.startContainer(id);
    return id;
  }
  const untilGone = (pid: number) => waitFor(async () => (await processStartTime(pid)) === undefined, `pid ${pid} gone`);

  it('runs the command with the container env (its PATH too) and working directory, also once adopted', async () => {
    const first = await open();
    const id = await running(first, { env: { GREETING: 'hi' }, workingDir: dir });
    const command = ['sh', '-c', 'echo "$GREETING from $(pwd)"'];
    expect(await first.exec(id, command, 10_000)).toEqual({ exitCode: 0, output: `hi from ${dir}\n`, timedOut: false });
    const second = await open();
    expect(await second.exec(id, command, 10_000)).toEqual({ exitCode: 0, output: `hi from ${dir}\n`, timedOut: false });
    expect(clock.pending).toBe(0);
  });

  it('reports a non-zero exit code, with stdout and stderr in the output', async () => {
    const runtime = await open();
    const id = await running(runtime);
    const result = await runtime.exec(id, ['sh', '-c', 'echo out; echo err >&2; exit 3'], 10_000);
    expect(result).toMatchObject({ exitCode: 3, timedOut: false });
    expect(result.output.split('\n').sort()).toEqual(['', 'err', 'out']);
  });

  it('kills the command and its process group at the timeout: timedOut, exit code 124', async () => {
    const runtime = await open();
    const id = await running(runtime);
    const pidFile = join(dir, 'sleep.pid');
    let result: Awaited<ReturnType<ProcessRuntime['exec']>> | undefined;
    const deadline = clock.now() + 5000;
    void runtime.exec(id, ['sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`], 5000).then((r) => (result = r));
    const sleepPid = Number(await waitFor(() => readFile(pidFile, 'utf8').catch(() => undefined), 'the pid file'));
    await clock.advance(deadline - 1 - clock.now());
    await wallDelay(50);
    expect(result).toBeUndefined();
    await clock.advance(1);
    expect(await waitFor(() => result, 'the exec result')).toEqual({ exitCode: 124, output: '', timedOut: true });
    await untilGone(sleepPid);
  });

  it('leaves nothing running: what the command started in the background dies with it', async () => {
    const runtime = await open();
    const id = await running(runtime);
    const result = await runtime.exec(id, ['sh', '-c', 'sleep 30 & echo $!'], 10_000);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    await untilGone(Number(result.output));
    expect(clock.pending).toBe(0);
  });

  it('a command that cannot be run ends with 127 (not found) or 126 (not executable, none), never a throw', async () => {
    const runtime = await open();
    const id = await running(runtime);
    const plain = join(dir, 'not-executable');
    await writeFile(plain, 'echo never');
    await chmod(plain, 0o644);
    expect(await runtime.exec(id, ['no-such-command-here'], 1000)).toEqual({
      exitCode: 127,
      output: 'exec: "no-such-command-here": executable file not found in $PATH',
      timedOut: false,
    });
    expect(await runtime.exec(id, [plain], 1000)).toEqual({ exitCode: 126, output: `exec: "${plain}": permission denied`, timedOut: false });
    expect(await runtime.exec(id, [], 1000)).toMatchObject({ exitCode: 126, timedOut: false });
    expect(clock.pending).toBe(0);
  });

  it('keeps only the first bytes of a long output', async () => {
    const runtime = await open();
    const id = await running(runtime);
    const result = await runtime.exec(id, nodeScript(`process.stdout.write('a'.repeat(${EXEC_OUTPUT_LIMIT}) + 'b'.repeat(100000));`).command, 10_000);
    expect(result).toMatchObject({ exitCode: 0, output: 'a'.repeat(EXEC_OUTPUT_LIMIT) });
  });
});
