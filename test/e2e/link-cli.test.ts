import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startDemo, type Demo } from '../../sim/demo.js';
import type { DemoFile } from '../../sim/demo-file.js';
import { kedge } from '../support/kedge-cli.js';
import { waitFor } from '../support/wait.js';

/** `kedge demo` (in this process) with one edge, and `kedge link` driving its cable. */
describe('kedge link against a running demo', () => {
  let dir: string;
  let demo: Demo;
  const output: string[] = [];

  const connection = async (): Promise<{ connected: boolean }> =>
    (await (await fetch(`${demo.nodes[0]!.localApiUrl}/connection`)).json()) as { connected: boolean };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-link-'));
    demo = await startDemo({
      nodes: 1,
      dataDir: dir,
      apiPort: 0,
      mqttPort: 0,
      localApiBasePort: 0,
      timeScale: 10,
      clock: realClock,
      logger: silentLogger,
      onLine: (line) => output.push(line),
    });
  });
  afterAll(async () => {
    await demo?.stop();
    if (demo) expect(existsSync(demo.demoFilePath)).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });

  it('writes demo.json: where the control API, the cloud and every edge (and its proxy) are', async () => {
    const file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    expect(file).toMatchObject({ pid: process.pid, controlUrl: demo.controlUrl, apiUrl: demo.apiUrl, brokerUrl: demo.brokerUrl });
    expect(file.nodes).toEqual([{ name: 'edge-1', localApiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), proxyUrl: `mqtt://127.0.0.1:${demo.links.get('edge-1')!.port}` }]);
    await waitFor(async () => (await connection()).connected, 'edge-1 connected through its proxy', 10_000, 50);
    expect(demo.links.get('edge-1')!.state().connections).toBe(1);
  });

  it('status: a table, or JSON with -o json', async () => {
    const table = await kedge('link', 'status', '--data-dir', dir);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NODE\s+LINK\s+SINCE\s+CONNECTIONS\s+BYTES-UP\s+BYTES-DOWN\nedge-1\s+up\s+\d{4}-\d\d-\d\dT\S+Z\s+1\s+\d+\s+\d+\n$/);
    const json = await kedge('link', 'status', '--data-dir', dir, '-o', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ items: [{ name: 'edge-1', state: 'up', connections: 1 }] });
    const one = await kedge('link', 'status', 'edge-1', '--data-dir', dir, '-o', 'json');
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'edge-1', state: 'up' });
  });

  it('cut: the edge finds out by keepalive; heal: it reconnects', async () => {
    const cut = await kedge('link', 'cut', 'edge-1', '--data-dir', dir);
    expect(cut).toMatchObject({ code: 0, stderr: '' });
    expect(cut.stdout).toMatch(/^edge-1: cut since \d{4}-\d\d-\d\dT\S+Z \(1 connection\)\n$/);
    expect(demo.links.get('edge-1')!.state().state).toBe('cut');
    await waitFor(async () => !(await connection()).connected, 'edge-1 to notice the pulled cable', 15_000, 50);

    const status = await kedge('link', 'status', 'edge-1', '--data-dir', dir);
    expect(status.stdout).toMatch(/\nedge-1\s+cut\s/);

    const heal = await kedge('link', 'heal', 'edge-1', '--data-dir', dir, '-o', 'json');
    expect(heal.code).toBe(0);
    expect(JSON.parse(heal.stdout)).toMatchObject({ name: 'edge-1', state: 'up' });
    await waitFor(async () => (await connection()).connected, 'edge-1 to reconnect', 15_000, 50);
  });

  it('reset: the edge loses its connection and makes a new one', async () => {
    const reset = await kedge('link', 'reset', 'edge-1', '--data-dir', dir);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/^edge-1: connections reset; link up since /);
    await waitFor(async () => (await connection()).connected && demo.links.get('edge-1')!.state().connections === 1, 'edge-1 to reconnect', 15_000, 50);
  });

  it('an unknown node: exit 1, naming the node', async () => {
    const run = await kedge('link', 'cut', 'nosuch', '--data-dir', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/no node "nosuch" in this demo \(its nodes: edge-1\)/);
    expect(demo.links.get('edge-1')!.state().state).toBe('up');
  });

  it('no demo at that data dir: exit 1, saying so', async () => {
    const run = await kedge('link', 'cut', 'edge-1', '--data-dir', '/nonexistent');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: no kedge demo is running with data dir /nonexistent (start one with npm start)\n');
  });

  it('an invalid node name is refused before anything is asked', async () => {
    const run = await kedge('link', 'heal', 'Not_A_Node', '--data-dir', dir);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not a valid node name/);
  });
});
