import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planChart } from '../../sim/scenario/chart.js';
import type { ScenarioReport } from '../../sim/scenario/report.js';
import type { Sample } from '../../sim/scenario/timeline.js';
import { kedgeBin } from '../../sim/role-process.js';
import { waitFor } from '../support/wait.js';

/**
 * Every built-in scenario, run as a user runs it (`kedge scenario run <name>`, real processes),
 * one after another. At time scale 20 the whole file takes about three minutes on two
 * cores (flapping-wifi's 10 minutes of flaps take 30 s of them).
 */
const TIME_SCALE = '20';
const BUILT_IN = ['cloud-failover', 'nodes-rebooted', 'store-down', 'kubelet-cut-off', 'scheduler-down', 'controller-manager-down', 'edge-restarted-offline', 'config-changed-offline', 'kube-proxy-down', 'cni-down', 'satellite-link', 'flapping-wifi', 'saturated-uplink'];
/** Listed too; run on its own etcd cluster in scenario-etcd-quorum.test.ts. */
const LISTED = [...BUILT_IN, 'etcd-quorum'];

let cwd: string;

function kedgeIn(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [kedgeBin, ...args], { cwd }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

const readReport = async (dir: string): Promise<ScenarioReport> => JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as ScenarioReport;
/** Processes whose command line names this path (a demo's cloud and edges name their data dir). */
const processesUsing = (path: string): string[] => execFileSync('ps', ['-eo', 'args']).toString().split('\n').filter((l) => l.includes(path));

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'kedge-scenarios-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('kedge scenario list and bad input', () => {
  it('lists the built-ins, one a line, name first', async () => {
    const out = await kedgeIn('scenario', 'list');
    expect(out.code).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0]).sort()).toEqual([...LISTED].sort());
    expect(lines.every((l) => /^\S+ {2,}\S/.test(l))).toBe(true);
  });

  it('exits 2 naming the built-ins for an unknown name, and the step and field of a bad file', async () => {
    const unknown = await kedgeIn('scenario', 'run', 'dns-down');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: no scenario named "dns-down" and no such file \(built-in: .*kubelet-cut-off.*\)/);
    await writeFile(join(cwd, 'bad.yaml'), 'name: bad\ndescription: d\nsteps:\n  - cut: edge-7\n');
    const bad = await kedgeIn('scenario', 'run', 'bad.yaml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.yaml: step 1 (cut), field "cut": "edge-7" is not a node of this scenario (edge-1, edge-2, edge-3)');
  });
});

const total = (s: Sample, nodes: readonly string[], view: 'cloudRunning' | 'edgeRunning'): number => nodes.reduce((n, node) => n + (s.nodes[node]?.[view] ?? 0), 0);

/**
 * nodes-rebooted's chart against its own expectations: 6 pods Running before the reboot, in
 * both views; on every rebooted node, none while it reboots; all 6 back once the expectation
 * that they are held; and every edge strip coloured by what the edge said, never "no answer".
 */
function expectChartOfNodesRebooted(report: ScenarioReport): void {
  const { samples, nodes } = report.timeline;
  const reboot = report.steps.find((s) => s.kind === 'reboot')!;
  const [up, back] = report.expectations;
  expect(up!.at!).toBeLessThanOrEqual(reboot.start!);
  const before = samples.filter((s) => s.at >= up!.at! && s.at <= reboot.start!);
  expect(before.some((s) => total(s, nodes, 'cloudRunning') === 6 && total(s, nodes, 'edgeRunning') === 6), 'all 6 up before the reboot').toBe(true);
  const during = samples.filter((s) => s.at >= reboot.start! && s.at < reboot.end!);
  for (const node of nodes) {
    expect(during.some((s) => s.nodes[node]!.edgeDown === 'rebooting' && s.nodes[node]!.edgeRunning === 0), `${node} at 0 while it reboots`).toBe(true);
  }
  const after = samples.filter((s) => s.at >= back!.at!);
  expect(after.some((s) => total(s, nodes, 'cloudRunning') === 6 && total(s, nodes, 'edgeRunning') === 6), 'all 6 back after the reboot').toBe(true);
  const chart = planChart(report);
  for (const band of chart.bands) {
    const states = band.segments.map((s) => s.state);
    expect(states, `${band.node}, ${band.view}'s view`).not.toContain('no answer');
    if (band.view === 'edge') expect([states[0], states.filter((s) => s === 'rebooting').length, states.at(-1)]).toEqual(['connected', 1, 'connected']);
  }
}

/** saturated-uplink's upload filled the link: at least 80% of 256 kbit/s (32 kB/s) up, over the span measured. */
function expectUplinkFilled(report: ScenarioReport): void {
  const upload = report.measurements.find((m) => m.name === 'upload since the new pod')!;
  expect(upload.bytes!.up).toBeGreaterThan(0.8 * 32_000 * upload.seconds);
}

describe.each(BUILT_IN)('built-in scenario %s', (name) => {
  it(`passes at time scale ${TIME_SCALE} and writes .kedge/scenarios/${name}/report.json and report.html`, async () => {
    const out = await kedgeIn('scenario', 'run', name, '--time-scale', TIME_SCALE);
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^PASSED: all \d+ expectations held$/m);
    const dir = join(cwd, '.kedge', 'scenarios', name);
    expect(out.stdout).toContain(`report: ${join('.kedge', 'scenarios', name, 'report.html')}`);
    const report = await readReport(dir);
    expect(report).toMatchObject({ passed: true, timeScale: 20, scenario: { name } });
    expect(report.expectations.every((e) => e.outcome === 'held')).toBe(true);
    expect(report.timeline.samples.length).toBeGreaterThan(3);
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('<svg ');
    expect(processesUsing(dir)).toEqual([]);
    if (name === 'nodes-rebooted') expectChartOfNodesRebooted(report);
    if (name === 'saturated-uplink') expectUplinkFilled(report);
  }, 120_000);
});

describe('a scenario that does not pass', () => {
  it('exits 1, stops every process, and its report says which expectation failed and what was seen', async () => {
    const file = join(cwd, 'wrong.yaml');
    await writeFile(
      file,
      [
        'name: wrong',
        'description: Expects a healthy node to be Unknown.',
        'nodes: 1',
        'timeScale: 20',
        'steps:',
        '  - apply: { apiVersion: v1, kind: Pod, metadata: { name: one }, spec: { containers: [{ name: c, image: kedge.io/hello:1.0 }] } }',
        '  - expect: pods',
        '    namespace: default',
        '    phase: Running',
        '    count: 1',
        '    within: 1m',
        '  - expect: node',
        '    node: edge-1',
        '    ready: Unknown',
        '    within: 20s',
        '  - cut: edge-1',
      ].join('\n'),
    );
    const out = await kedgeIn('scenario', 'run', file, '--out', 'wrong-out');
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('FAILED (1 of 2 expectations held): step 3: expect edge-1 Ready=Unknown (as the cloud sees it); seen: not within 20s: Ready=True');
    const dir = join(cwd, 'wrong-out');
    const report = await readReport(dir);
    expect(report.passed).toBe(false);
    expect(report.expectations).toMatchObject([
      { step: 2, outcome: 'held' },
      { step: 3, outcome: 'failed', seen: 'not within 20s: Ready=True' },
    ]);
    expect(report.steps[3]!.start).toBeUndefined();
    expect(await readFile(join(dir, 'report.html'), 'utf8')).toContain('<h1>wrong: FAILED</h1>');
    await waitFor(() => processesUsing(dir).length === 0, 'no demo process left', 10_000, 100);
  }, 60_000);

  it('stops the demo and writes its report on Ctrl-C', async () => {
    const file = join(cwd, 'long.yaml');
    await writeFile(file, 'name: long\ndescription: Waits.\nnodes: 1\nsteps:\n  - wait: 1h\n  - cut: edge-1\n');
    const child = spawn(process.execPath, [kedgeBin, 'scenario', 'run', file, '--out', 'long-out'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    const waiting = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line.includes('step 1/2: wait 1h')) resolve();
      });
    });
    await waiting;
    const dir = join(cwd, 'long-out');
    expect(processesUsing(dir).length).toBeGreaterThan(0);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain('FAILED (0 of 0 expectations held): step 1: interrupted');
    expect((await readReport(dir)).error).toBe('step 1: interrupted');
    expect((await stat(join(dir, 'report.html'))).isFile()).toBe(true);
    await waitFor(() => processesUsing(dir).length === 0, 'no demo process left', 10_000, 100);
  }, 60_000);
});
