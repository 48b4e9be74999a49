import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime, signalGroup } from '../../edge/runtime/proc-stat.js';
import { PROCESS_STATE_FILE, ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { containerPaths } from '../../edge/runtime/process-spawn.js';
import type { ProcessRecord, ProcessState } from '../../edge/runtime/process-state.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { nodeScript } from '../edge/process-workloads.js';
import { testNetwork } from '../support/test-network.js';

/** The boot the records were written in: the machine has booted since (and the edge runs without --reboot). */
const EARLIER_BOOT = '00000000-0000-4000-8000-000000000000';
const RUNS = `setInterval(() => {}, 1000)`;

/** Another program's process group whose leader has exited: `member` runs on in it, and the group's id is the leader's old pid. */
async function leaderlessGroup(): Promise<{ group: number; member: { pid: number; startTime: string } }> {
  const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(RUNS)}], { stdio: 'ignore' }); c.unref(); console.log(c.pid);`;
  const leader = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let said = '';
  leader.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
  await once(leader, 'close');
  const member = Number(said.trim());
  return { group: leader.pid!, member: { pid: member, startTime: (await processStartTime(member))! } };
}

/** Another program that leads its own process group. */
async function groupLeader(): Promise<{ pid: number; startTime: string }> {
  const child = spawn(process.execPath, ['-e', RUNS], { detached: true, stdio: 'ignore' });
  child.unref();
  await once(child, 'spawn');
  return { pid: child.pid!, startTime: (await processStartTime(child.pid!))! };
}

/** Whether `pid` is still the process that started at `startTime` a moment later (a SIGKILL sent just now takes effect within it). */
async function runsOn(pid: number, startTime: string): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    if ((await processStartTime(pid)) !== startTime) return false;
    await wallDelay(30);
  }
  return true;
}

/**
 * After a real reboot, a process runtime started without --reboot reads records (and pid files)
 * of the earlier boot: their pids and process groups name nobody of ours any more, and may be
 * another program's. It signals none of them, and adopts none.
 */
describe('process runtime: shims of an earlier boot', () => {
  let dir: string;
  let groups: number[];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-earlier-boot-'));
    groups = [];
  });
  afterEach(async () => {
    for (const group of groups) signalGroup(group, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  /** A container whose shim the state records as `shim`, in the earlier boot; `ran`: its shim let the container run (its log is there). */
  async function recorded(shim: Pick<ProcessRecord, 'pid' | 'startTime'>, ran: boolean): Promise<string> {
    const runtime = await ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock() });
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, ...nodeScript(RUNS) });
    runtime.close();
    const path = join(dir, PROCESS_STATE_FILE);
    const state = JSON.parse(await readFile(path, 'utf8')) as ProcessState;
    Object.assign(state.containers[0]!, shim, { bootId: EARLIER_BOOT, startedAt: 0 });
    await writeFile(path, JSON.stringify(state));
    if (ran) await writeFile(containerPaths(dir, id).log, '');
    return id;
  }
  const open = () => ProcessRuntime.open({ network: testNetwork(), dataDir: dir, clock: new FakeClock() });
  const stateOf = async (runtime: ProcessRuntime, id: string) => (await runtime.listContainers()).find((c) => c.id === id)?.state;

  it.each([
    ['was never let go', false, 'created'],
    ['ran its container', true, 'exited'],
  ])('a shim that %s, whose pid is free now, leaves alone the process group that has its number', async (_what, ran, state) => {
    const { group, member } = await leaderlessGroup();
    groups.push(group);
    const id = await recorded({ pid: group, startTime: '1' }, ran);
    const runtime = await open();
    expect(await stateOf(runtime, id)).toBe(state);
    await runtime.removeContainer(id);
    expect(await runsOn(member.pid, member.startTime)).toBe(true);
  });

  it('a process of this boot with the same pid and start time as a recorded shim is not adopted, nor stopped', async () => {
    const other = await groupLeader();
    groups.push(other.pid);
    const id = await recorded(other, true);
    const runtime = await open();
    expect(await stateOf(runtime, id)).toBe('exited');
    await runtime.removeContainer(id);
    expect(await runsOn(other.pid, other.startTime)).toBe(true);
  });

  it('nor is one named by a pid file of the earlier boot that no record accounts for', async () => {
    const other = await groupLeader();
    groups.push(other.pid);
    await open(); // makes the containers directory
    await writeFile(containerPaths(dir, 'lost').pid, JSON.stringify({ ...other, bootId: EARLIER_BOOT }));
    await open();
    expect(await runsOn(other.pid, other.startTime)).toBe(true);
  });
});
