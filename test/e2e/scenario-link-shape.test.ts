import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioReport } from '../../sim/scenario/report.js';
import { kedgeBin } from '../../sim/role-process.js';

/**
 * `shape:` and `flap:` steps, run as a user runs a scenario file (`kedge scenario run`, real
 * processes): a link whose round trip is longer than the edge's MQTT keepalive loses its
 * connection, and a flap long enough for the keepalive to notice is seen by the edge.
 */
const SCENARIO = [
  'name: shaped-link',
  'description: A link too slow for the keepalive, then a flapping one; each cleared in turn.',
  'nodes: 1',
  'timeScale: 10',
  'steps:',
  // 20 s each way: the edge's pings go unanswered for longer than 1.5 keepalives.
  '  - shape: { node: edge-1, latency: 20s }',
  '  - expect: connection',
  '    node: edge-1',
  '    connected: false',
  '    within: 1m',
  '  - shape: { node: edge-1, clear: true }',
  '  - expect: connection',
  '    node: edge-1',
  '    connected: true',
  '    within: 1m',
  '  - flap: { node: edge-1, down: 40s, every: 60s }',
  '  - expect: connection',
  '    node: edge-1',
  '    connected: false',
  '    within: 2m',
  '  - flap: { node: edge-1, stop: true }',
  '  - expect: connection',
  '    node: edge-1',
  '    connected: true',
  '    within: 1m',
  '  - shape: { node: edge-1, profile: satellite }',
  '  - expect: node',
  '    node: edge-1',
  '    ready: "True"',
  '    for: 20s',
].join('\n');

describe('scenario steps shape and flap against a real demo', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'kedge-scenario-shape-'));
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('passes: the steps reach the link proxy, in cluster time', async () => {
    await writeFile(join(cwd, 'shaped.yaml'), SCENARIO);
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [kedgeBin, 'scenario', 'run', 'shaped.yaml'], { cwd }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
    });
    expect(out.code, out.stdout + out.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(cwd, '.kedge', 'scenarios', 'shaped-link', 'report.json'), 'utf8')) as ScenarioReport;
    expect(report.passed).toBe(true);
    expect(report.steps.filter((s) => s.kind === 'shape' || s.kind === 'flap').map((s) => s.text)).toEqual([
      "shape edge-1's link: custom (20s)",
      "unshape edge-1's link (and stop any flap)",
      "flap edge-1's link: down 40s every 1m",
      "stop flapping edge-1's link",
      "shape edge-1's link: satellite (300ms±20ms,loss=1%,up=256kbit,down=256kbit)",
    ]);
  }, 180_000);
});
