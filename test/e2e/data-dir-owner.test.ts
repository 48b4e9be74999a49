import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock } from '../../shared/clock.js';
import { LOCK_DIR } from '../../shared/data-dir-lock.js';
import type { Node } from '../../shared/types.js';
import { kedgeBin, readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { waitFor } from '../support/wait.js';

const CONTRACT_MS = 10_000;
const ports = ['--api-port', '0', '--mqtt-port', '0'];
const isReady = (n: Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** `kedge <args>`, killed if it has not exited within the contract's 10 s. */
function kedgeWithin(...args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [kedgeBin, ...args], { timeout: CONTRACT_MS, killSignal: 'SIGKILL' }, (err, _stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stderr, ms: performance.now() - started });
    });
  });
}

function startCloudRole(dir: string, lines: string[] = []): RoleProcess {
  return startRole({ name: 'cloud', args: ['cloud', '--data-dir', dir, ...ports, '--store', 'durable'], readyPattern: /^kedge cloud ready /, clock: realClock, onLine: (l) => lines.push(l) });
}

/** One owner per data dir, with real processes: the demo, clouds, edges and restore. */
describe('a data dir in use refuses a second owner (real processes)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  let dir: string;
  let demo: RoleProcess;
  let demoFile: string;
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });
  const tempDir = async (prefix: string): Promise<string> => {
    const d = await mkdtemp(join(tmpdir(), prefix));
    cleanup.push(() => rm(d, { recursive: true, force: true }));
    return d;
  };

  beforeAll(async () => {
    dir = await tempDir('kedge-owner-demo-');
    demo = startRole({ name: 'demo', args: ['demo', '--nodes', '2', '--data-dir', dir, ...ports, '--local-api-base-port', '0', '--time-scale', '5'], readyPattern: /^kedge demo ready/, clock: realClock });
    cleanup.push(() => demo.stop());
    await demo.ready;
    demoFile = await readFile(join(dir, 'demo.json'), 'utf8');
  }, 60_000);

  /** An edge, not the cloud's own control-plane node. */
  const isEdge = (n: Node): boolean => n.metadata.labels?.['node-role.kubernetes.io/edge'] !== undefined;

  async function demoKeepsWorking(): Promise<void> {
    expect(await readFile(join(dir, 'demo.json'), 'utf8')).toBe(demoFile);
    const api = createRemoteClient(JSON.parse(demoFile).apiUrl as string, (await readCredentials(dir))!.admin);
    await waitFor(async () => (await api.list<Node>({ resource: 'nodes' })).items.filter((n) => isReady(n) && isEdge(n)).length === 2, 'both edges Ready', 15_000, 100);
  }

  it('kedge cloud on the demo’s data dir exits non-zero within 10 s, naming the pid that holds it; the demo keeps working', async () => {
    const run = await kedgeWithin('cloud', '--data-dir', dir, ...ports);
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(CONTRACT_MS);
    expect(run.stderr).toContain(`data dir ${dir} is in use by pid ${demo.child.pid} (kedge demo) and pid `);
    expect(run.stderr).toMatch(/and pid \d+ \(kedge cloud, for pid \d+\): a data dir has one owner; stop it first/);
    await demoKeepsWorking();
  });

  it('a second kedge demo on the same data dir refuses cleanly and touches nothing', async () => {
    const run = await kedgeWithin('demo', '--data-dir', dir, ...ports, '--local-api-base-port', '0');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a kedge demo already runs in ${dir} (pid ${demo.child.pid}); a data dir has one demo`);
    await demoKeepsWorking();
  });

  it('kedge edge on a demo edge’s data dir, kedge restore and kedge fleet on the demo’s refuse, naming the pid', async () => {
    const edge = await kedgeWithin('edge', '--node', 'edge-1', '--broker', 'mqtt://127.0.0.1:1', '--token', 't', '--data-dir', join(dir, 'edges', 'edge-1'), '--local-api-port', '0');
    expect(edge.code).toBe(1);
    const edgePid = Number(/is in use by pid (\d+) \(kedge edge edge-1\): a data dir has one owner/.exec(edge.stderr)?.[1]);
    expect((await readFile(`/proc/${edgePid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[1]).toBe(String(demo.child.pid)); // the demo's edge-1
    const restore = await kedgeWithin('restore', join(dir, 'no.backup'), '--data-dir', dir);
    expect([restore.code, restore.stderr]).toEqual([1, expect.stringMatching(new RegExp(`^error: data dir ${dir} is in use by pid ${demo.child.pid} \\(kedge demo\\)`))]);
    const fleet = await kedgeWithin('fleet', '--nodes', '1', '--broker', 'mqtt://127.0.0.1:1', '--token', 't', '--data-dir', dir);
    expect(fleet.code).toBe(1);
    expect(fleet.stderr).toContain(`is in use by pid ${demo.child.pid} (kedge demo)`);
    await demoKeepsWorking();
  });

  it('of two kedge clouds started at the same instant on one data dir, exactly one runs; the other names it', async () => {
    const shared = await tempDir('kedge-owner-race-');
    const clouds = [startCloudRole(shared), startCloudRole(shared)];
    for (const c of clouds) cleanup.push(() => c.stop());
    const results = await Promise.allSettled(clouds.map((c) => c.ready));
    const winner = clouds[results.findIndex((r) => r.status === 'fulfilled')]!;
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(lost).toHaveLength(1);
    expect(String(lost[0]!.reason)).toContain(`is in use by pid ${winner.child.pid} (kedge cloud)`);
    await winner.stop();
  }, 60_000);

  it('a cloud killed with -9 leaves no lock behind it: the next one takes over, saying so; a clean stop releases it', async () => {
    const own = await tempDir('kedge-owner-kill-');
    const first = startCloudRole(own);
    cleanup.push(() => first.stop());
    await first.ready;
    await first.kill();
    const lines: string[] = [];
    const second = startCloudRole(own, lines);
    cleanup.push(() => second.stop());
    const api = readyField(await second.ready, 'api');
    expect(api).toMatch(/^https:/);
    expect(lines.filter((l) => l.includes(`taking over data dir ${own}: pid ${first.child.pid} (kedge cloud) held it and is gone`))).toHaveLength(1);
    await second.stop(30_000); // a generous grace: SIGKILL would leave the lock to the next one, as above
    expect(await second.exited).toBe(0);
    expect(await readdir(own)).not.toContain(LOCK_DIR);
  }, 60_000);
});
