import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCD_BIN } from '../../sim/etcd/etcd-member.js';
import type { ScenarioReport } from '../../sim/scenario/report.js';
import { kedgeBin } from '../../sim/role-process.js';
import { killProcessesNaming } from '../support/processes.js';

if (!existsSync(ETCD_BIN)) throw new Error(`${ETCD_BIN} is missing: install the Debian package etcd-server (apt-get install etcd-server)`);

/** `kedge scenario run etcd-quorum` as a user runs it, at its own time scale: about a minute on two cores. */
describe('built-in scenario etcd-quorum', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'kedge-etcd-quorum-'));
  });
  afterAll(async () => {
    await killProcessesNaming(cwd);
    await rm(cwd, { recursive: true, force: true });
  });

  it('passes, measures each transition, records which reads answered, and leaves no process behind', async () => {
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [kedgeBin, 'scenario', 'run', 'etcd-quorum'], { cwd, timeout: 170_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
    });
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^PASSED: all \d+ expectations held$/m);
    const dir = join(cwd, '.kedge', 'scenarios', 'etcd-quorum');
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as ScenarioReport;
    expect(report).toMatchObject({ passed: true, timeScale: 10, scenario: { name: 'etcd-quorum' } });
    expect(report.realSeconds).toBeLessThan(120);

    const measured = new Map(report.measurements.map((m) => [m.name, m]));
    const lost = measured.get('first failed write after the second member stopped');
    const back = measured.get('first acknowledged write after a member started again');
    expect(lost, JSON.stringify(report.measurements)).toBeDefined();
    expect(back).toBeDefined();
    const stepOf = (n: number) => report.steps[n - 1]!;
    expect([stepOf(lost!.fromStep).text, stepOf(back!.fromStep).text]).toEqual(['stop etcd member etcd-2', 'start etcd member etcd-1']);
    expect(lost!.realSeconds).toBeGreaterThan(0);
    expect(back!.realSeconds).toBeGreaterThan(0);

    const seen = (text: RegExp): string[] => report.expectations.filter((e) => text.test(e.text)).map((e) => e.seen ?? '');
    // The write that failed says how, in the cloud's words.
    expect(seen(/a write through the API fails/)[0]).toMatch(/not created: HTTP (503|504) after .*etcd: /);
    // With one member left: the linearizable read got no answer from it; the serializable one is as etcd answered, recorded per member.
    const [, linearizableLost] = seen(/a linearizable read/);
    expect(linearizableLost).toMatch(/^0 of 3 answered: etcd-0 did not answer/);
    expect(seen(/a serializable read/)[0]).toMatch(/^\d of 3 answered: etcd-0 (answered|did not answer) .*etcd-1 did not answer .*etcd-2 did not answer/);
    expect(seen(/every acknowledged write is still there/)[0]).toMatch(/^all \d+ acknowledged writes are there$/);
    // Without a quorum the hub's Lease runs out and the edges are parted from it; with the quorum back they connect again.
    expect(measured.get('edge-1 connected again after the quorum came back')?.realSeconds).toBeGreaterThan(0);
    expect(execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => l.includes(dir))).toEqual([]);
  }, 180_000);
});
