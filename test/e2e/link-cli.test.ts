import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startDemo, type Demo } from '../../sim/demo.js';
import type { DemoFile } from '../../sim/demo-file.js';
import type { LinkState } from '../../sim/link-proxy.js';
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
    expect(table.stdout).toMatch(/^NODE\s+LINK\s+SINCE\s+CONNECTIONS\s+BYTES-UP\s+BYTES-DOWN\s+PROFILE\s+SHAPE\s+FLAP\s+DELAYED\s+DROPPED\s+QUEUED\nedge-1\s+up\s+\d{4}-\d\d-\d\dT\S+Z\s+1\s+\d+\s+\d+\s+-\s+-\s+-\s+0\s+0\s+0\n$/);
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

  it('shape --profile satellite: status shows the profile and its counters; the edge keeps its connection through it', async () => {
    const shape = await kedge('link', 'shape', 'edge-1', '--profile', 'satellite', '--data-dir', dir);
    expect(shape).toMatchObject({ code: 0, stderr: '' });
    expect(shape.stdout).toBe('edge-1: shaped satellite (300ms±20ms,loss=1%,up=256kbit,down=256kbit); link up\n');
    await waitFor(() => (demo.links.get('edge-1')!.state().delayedChunks > 0 ? true : undefined), 'bytes through the shaped link', 15_000, 50);
    const status = await kedge('link', 'status', 'edge-1', '--data-dir', dir);
    expect(status.stdout).toMatch(/\nedge-1\s+up\s+\S+\s+1\s+\d+\s+\d+\s+satellite\s+300ms±20ms,loss=1%,up=256kbit,down=256kbit\s+-\s+[1-9]\d*\s+\d+\s+\d+\n$/);
    const json = JSON.parse((await kedge('link', 'status', '--data-dir', dir, '-o', 'json')).stdout) as { items: LinkState[] };
    expect(json.items[0]).toMatchObject({ name: 'edge-1', profile: { name: 'satellite', latencyMs: 300, jitterMs: 20, lossPercent: 1, rateUpBps: 256_000, rateDownBps: 256_000 } });
    expect(json.items[0]).toHaveProperty('droppedSegments');
    expect(json.items[0]).toHaveProperty('queuedUp');
    expect((await connection()).connected).toBe(true);
  });

  it('shape with explicit fields, -o json', async () => {
    const run = await kedge('link', 'shape', 'edge-1', '--latency', '600ms', '--jitter', '100ms', '--loss', '2%', '--rate', '64kbit', '--rate-down', '1mbit', '--seed', '7', '--data-dir', dir, '-o', 'json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: 'edge-1', profile: { name: 'custom', latencyMs: 600, jitterMs: 100, lossPercent: 2, rateUpBps: 64_000, rateDownBps: 1_000_000, seed: 7 } });
  });

  it('flap: the link is cut and healed on schedule (cluster time); --stop ends it; shape --clear ends profile and flap', async () => {
    const flap = await kedge('link', 'flap', 'edge-1', '--down', '5s', '--every', '30s', '--data-dir', dir);
    expect(flap).toMatchObject({ code: 0, stderr: '' });
    expect(flap.stdout).toMatch(/^edge-1: flaps down 5s every 30s; link up\n$/);
    // Time scale 10: down 0.5 s every 3 s of real time.
    await waitFor(() => demo.links.get('edge-1')!.state().flap?.flaps || undefined, 'the first flap', 15_000, 20);
    const status = await kedge('link', 'status', '--data-dir', dir);
    expect(status.stdout).toMatch(/\sFLAP\s[\s\S]*\s5s\/30s\s/);
    const stop = await kedge('link', 'flap', 'edge-1', '--stop', '--data-dir', dir, '-o', 'json');
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ name: 'edge-1', state: 'up' });
    expect(JSON.parse(stop.stdout)).not.toHaveProperty('flap');

    const seeded = await kedge('link', 'flap', 'edge-1', '--down', '5s', '--every', '30s', '--seed', '7', '--data-dir', dir, '-o', 'json');
    expect(JSON.parse(seeded.stdout)).toMatchObject({ flap: { downMs: 5000, everyMs: 30_000, seed: 7 } });
    const clear = await kedge('link', 'shape', 'edge-1', '--clear', '--data-dir', dir);
    expect(clear).toMatchObject({ code: 0, stdout: 'edge-1: not shaped, not flapping; link up\n' });
    expect(demo.links.get('edge-1')!.state()).not.toHaveProperty('profile');
    expect(demo.links.get('edge-1')!.state()).not.toHaveProperty('flap');
    await waitFor(async () => (await connection()).connected, 'edge-1 connected after the flaps', 15_000, 50);
  });

  it('bad shape and flap flags: exit 1 naming the flag, nothing changed', async () => {
    const cases: [string[], string][] = [
      [['shape', 'edge-1', '--latency', 'fast'], '--latency: "fast" is not a duration such as 600ms or 5s'],
      [['shape', 'edge-1', '--latency', '1000000000s'], '--latency: "1000000000s" is more than 1m0s'],
      [['shape', 'edge-1', '--loss', '75%'], '--loss: "75%" is not a percentage from 0% to 50%'],
      [['shape', 'edge-1', '--rate-up', '64kb'], '--rate-up: "64kb" is not a rate such as 64kbit, 1.5mbit or 500000bit'],
      [['shape', 'edge-1', '--profile', 'moon'], '--profile: "moon" is not a profile (satellite, 3g, wifi-flaky, lan)'],
      [['shape', 'edge-1', '--clear', '--loss', '1%'], '--clear: goes alone (it removes the profile and any flap), not with --loss'],
      [['shape', 'edge-1'], 'give --profile, --clear, or at least one of --latency, --jitter, --loss, --rate, --rate-up, --rate-down'],
      [['flap', 'edge-1', '--down', '30s', '--every', '5s'], '--every: must be more than --down (30s)'],
      [['flap', 'edge-1', '--every', '5s'], '--down: required: how long the link stays down, such as 5s'],
    ];
    for (const [args, message] of cases) {
      const run = await kedge('link', ...args, '--data-dir', dir);
      expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ args, code: 1, stdout: '', stderr: `error: ${message}\n` });
    }
    expect(demo.links.get('edge-1')!.state()).not.toHaveProperty('profile');
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
