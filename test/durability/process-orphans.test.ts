import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../edge/runtime/proc-stat.js';
import { PROCESS_STATE_FILE, ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { containerEnv, containerPaths, readExitFile, spawnShim } from '../../edge/runtime/process-spawn.js';
import type { ProcessState } from '../../edge/runtime/process-state.js';
import { FakeClock } from '../../shared/clock.js';
import { eventually } from '../support/eventually.js';
import { nodeScript } from '../edge/process-workloads.js';
import { liveProcesses } from '../support/processes.js';
import { testNetwork } from '../support/test-network.js';

/** Says its pid, then runs until killed. */
const SAYS_PID_AND_RUNS = `console.log('pid=' + process.pid); setInterval(() => {}, 1000);`;
/** Starts a child that runs on with nothing tying it to the container, says its pid, and exits. */
const LEAVES_A_CHILD = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref(); console.log('pid=' + c.pid);`;

const exists = (path: string) => access(path).then(() => true, () => false);
/** Whether some process runs with `arg` on its command line (a shim has its container's log path there); zombies are done. */
const runsWith = async (arg: string): Promise<boolean> => (await liveProcesses()).some((p) => p.args.includes(arg));

/** A container process killed at the wrong moment, or whose shim died, is found and stopped: never left running. */
describe('process runtime: no container process left behind', () => {
  let dir: string;
  let clock: FakeClock;
  let opened: ProcessRuntime[];
  const open = async () => {
    for (const old of opened) old.close(); // as a killed edge process would: it stops listening
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock });
    opened.push(runtime);
    return runtime;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-orphans-'));
    clock = new FakeClock();
    opened = [];
  });
  afterEach(async () => {
    for (const old of opened) old.close();
    await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock, reboot: true }); // kills whatever is still recorded
    await rm(dir, { recursive: true, force: true });
  });

  async function start(runtime: ProcessRuntime, script: string, podUid = 'u1') {
    const sandbox = await runtime.runSandbox({ podUid, name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript(script) });
    await runtime.startContainer(id);
    return id;
  }
  const infoOf = async (runtime: ProcessRuntime, id: string) => (await runtime.listContainers()).find((c) => c.id === id);
  const pidLogged = (runtime: ProcessRuntime, id: string) =>
    eventually(clock, async () => Number(/^pid=(\d+)$/.exec((await runtime.logs(id))[0]?.text ?? '')?.[1]), 'the pid in the log', { stepMs: 1 });
  const shimPid = async (id: string) => {
    const state = JSON.parse(await readFile(join(dir, PROCESS_STATE_FILE), 'utf8')) as ProcessState;
    return state.containers.find((c) => c.id === id)!.pid!;
  };
  const untilGone = (pid: number) => eventually(clock, async () => (await processStartTime(pid)) === undefined, `pid ${pid} gone`);

  it('a container whose shim died is stopped, not left running unwatched (after an edge restart too)', async () => {
    const first = await open();
    const id = await start(first, SAYS_PID_AND_RUNS);
    const pid = await pidLogged(first, id);
    const again = await open();
    process.kill(await shimPid(id), 'SIGKILL'); // the shim alone: its container runs on
    expect(await eventually(clock, async () => (await infoOf(again, id))?.state === 'exited' && infoOf(again, id), 'exited')).toMatchObject({ exitCode: 255, reason: 'Unknown' });
    await untilGone(pid);
  });

  it('a shim whose record cannot be written is never let go: nothing runs, and the container is created again', async () => {
    const runtime = await open();
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript(SAYS_PID_AND_RUNS) });
    await rm(join(dir, PROCESS_STATE_FILE));
    await mkdir(join(dir, PROCESS_STATE_FILE)); // no file can be renamed onto it: the next write fails
    await expect(runtime.startContainer(id)).rejects.toThrow();
    expect(await infoOf(runtime, id)).toMatchObject({ state: 'created' }); // not `running`: edged replaces it
    await rm(join(dir, PROCESS_STATE_FILE), { recursive: true });
    const { log } = containerPaths(dir, id);
    await eventually(clock, async () => !(await runsWith(log)), 'the shim gone');
    expect(await exists(log)).toBe(false); // it ran nothing
  });

  it('a container that ends takes down what it left running in its process group', async () => {
    const runtime = await open();
    const id = await start(runtime, LEAVES_A_CHILD);
    const child = await pidLogged(runtime, id);
    expect(await eventually(clock, async () => (await infoOf(runtime, id))?.state === 'exited' && infoOf(runtime, id), 'exited')).toMatchObject({ exitCode: 0 });
    await untilGone(child);
  });

  it('a shim that no record accounts for (the state is an older copy) is stopped with its container, and its files go', async () => {
    const runtime = await open();
    const kept = await start(runtime, SAYS_PID_AND_RUNS, 'u1');
    const olderState = await readFile(join(dir, PROCESS_STATE_FILE), 'utf8');
    const lost = await start(runtime, SAYS_PID_AND_RUNS, 'u2');
    const [keptPid, lostPid, lostShim] = [await pidLogged(runtime, kept), await pidLogged(runtime, lost), await shimPid(lost)];
    await writeFile(join(dir, PROCESS_STATE_FILE), olderState);

    const again = await open();
    await untilGone(lostPid);
    await untilGone(lostShim);
    expect(await exists(containerPaths(dir, lost).log)).toBe(false);
    expect((await again.listContainers()).map((c) => [c.id, c.state])).toEqual([[kept, 'running']]);
    expect(await processStartTime(keptPid)).toBeDefined();
  });

  it('a container whose shim was written down but never let go (the edge died between) is created again, and nothing runs', async () => {
    const crashed = await ProcessRuntime.open({
      network: testNetwork(),
      dataDir: dir,
      clock,
      crashPoint: (step) => {
        if (step === 'shim-recorded') throw new Error('killed here');
      },
    });
    opened.push(crashed);
    const sandbox = await crashed.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await crashed.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript(SAYS_PID_AND_RUNS) });
    await expect(crashed.startContainer(id)).rejects.toThrow('killed here');
    const waiting = await shimPid(id);
    expect(await processStartTime(waiting)).toBeDefined();

    const again = await open();
    expect(await infoOf(again, id)).toMatchObject({ state: 'created' });
    await untilGone(waiting);
    expect(await again.logs(id)).toEqual([]);
  });
});

describe('the log shim', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-shim-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const shimFor = (script: string) =>
    spawnShim({ dataDir: dir, id: 'c1', ...nodeScript(script), args: [], env: containerEnv(), maxLogBytes: 1 << 20 }).then((shim) => shim!);

  it('outlives its reader: the edge gone before it says "up" (EPIPE), it still records the exit', async () => {
    await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock() }); // makes the containers directory
    const shim = await shimFor(`setTimeout(() => process.exit(3), 300);`);
    shim.child.stdout!.destroy(); // nobody reads "up" any more
    await shim.release(); // resolves once the shim has ended
    expect(await readExitFile(containerPaths(dir, 'c1').exit)).toEqual({ exitCode: 3, reason: 'Error' });
  });

  it('never let go (its edge gone: stdin closed), it runs nothing and exits', async () => {
    await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock() });
    const marker = join(dir, 'ran');
    const shim = await shimFor(`require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'yes')`);
    const exited = new Promise((resolve) => shim.child.once('exit', resolve));
    shim.child.stdin!.destroy();
    expect(await exited).toBe(0);
    expect(await exists(marker)).toBe(false);
    expect(await exists(containerPaths(dir, 'c1').pid)).toBe(false);
  });
});
