import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionReport } from '../../edge/local-api.js';
import { realClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import { DEMO_KEEPALIVE_SECONDS, startDemo, type Demo } from '../../sim/demo.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { killMarker, markerPid, markerPod } from '../support/marker-pod.js';
import { isRunning, killProcessesNaming } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/**
 * A demo (in this process, at real time) with one edge: how soon its edge notices a pulled
 * cable, `kedge demo restart|crash|reboot`, the line the demo prints when an edge process
 * exits, and its end stopping the edge's process pods.
 */
describe('a running demo: its edges from the command line', () => {
  let dir: string;
  let demo: Demo;
  const logger = memoryLogger('demo');
  const mark = (): string => join(dir, 'marker');

  const edgePid = (): number => demo.edges.get('edge-1')!.child.pid!;
  const connection = async (): Promise<ConnectionReport> => (await (await fetch(`${demo.nodes[0]!.localApiUrl}/connection`)).json()) as ConnectionReport;
  const connected = async (): Promise<boolean> => (await connection().catch(() => undefined))?.connected === true;
  /** The demo's own lines, without their time stamps. */
  const said = (): string[] => logger.lines.map((l) => l.replace(/^\S+ \S+\s+/, ''));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-verbs-'));
    demo = await startDemo({ nodes: 1, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: 1, clock: realClock, logger });
    await waitFor(connected, 'edge-1 connected', 20_000, 50);
  });
  afterAll(async () => {
    await demo?.stop();
    if (dir) await killMarker(mark());
    if (dir) await killProcessesNaming(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('a cut cable: /connection says connected until the keepalive (2 s) fails, at most 1.5 keepalives after it last heard from the broker', async () => {
    expect(await connection()).toMatchObject({ connected: true, keepaliveSeconds: DEMO_KEEPALIVE_SECONDS, silentForSeconds: expect.any(Number) });
    expect((await kedge('link', 'cut', 'edge-1', '--data-dir', dir)).code).toBe(0);
    const offline = await waitFor(async () => {
      const c = await connection();
      return !c.connected && c;
    }, 'edge-1 to notice the cut', 20_000, 50);
    const silence = Date.parse(offline.offlineSince!) - Date.parse(offline.lastHeardFromBroker!);
    expect(silence).toBeLessThan(1.5 * DEMO_KEEPALIVE_SECONDS * 1000 + 2_000); // timers run late on a busy machine
    expect((await kedge('link', 'heal', 'edge-1', '--data-dir', dir)).code).toBe(0);
    await waitFor(connected, 'edge-1 back', 20_000, 50);
  });

  it('crash: kill -9 of the edge process, started again; -o json prints the process', async () => {
    const before = edgePid();
    const out = await kedge('demo', 'crash', 'edge-1', '--data-dir', dir, '-o', 'json');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ name: 'edge-1', process: 'running', localApiUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(edgePid()).not.toBe(before);
    expect(said()).toEqual(expect.arrayContaining([`[demo] edge-1's edge process (pid ${before}) exited (killed by SIGKILL)`, `[demo] edge-1's edge process started again (pid ${edgePid()})`]));
  });

  it('an edge process killed from outside: the demo says so and how to start it again, which `kedge demo restart` does', async () => {
    const killed = edgePid();
    process.kill(killed, 'SIGKILL');
    const hint = `[demo] edge-1's edge process (pid ${killed}) exited (killed by SIGKILL); start it again with: bin/kedge demo restart edge-1 --data-dir ${dir}`;
    await waitFor(() => said().includes(hint), 'the exit line', 10_000, 20);

    const out = await kedge('demo', 'restart', 'edge-1', '--data-dir', dir);
    expect(out).toMatchObject({ code: 0, stderr: 'edge-1: stopping its edge process (SIGTERM) and starting it again…\n' });
    expect(out.stdout).toMatch(/^edge-1: edge process restarted; its process is running, local API http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(said()).toContain(`[demo] edge-1's edge process started again (pid ${edgePid()})`);
    await waitFor(connected, 'edge-1 connected again', 20_000, 50);
  });

  it('reboot, and the --data-dir given before the verb; an unknown node is an error', async () => {
    const out = await kedge('demo', '--data-dir', dir, 'reboot', 'edge-1');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^edge-1: node rebooted; its process is running, /);
    expect(said()).toContain(`[demo] edge-1's edge process started again (pid ${edgePid()}, as after a node reboot)`);

    const unknown = await kedge('demo', 'crash', 'edge-9', '--data-dir', dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: no node "edge-9" in this demo/m);
    const noDemo = await kedge('demo', 'crash', 'edge-1', '--data-dir', join(dir, 'nothing'));
    expect(noDemo).toMatchObject({ code: 1, stderr: `error: no kedge demo is running with data dir ${join(dir, 'nothing')} (start one with npm start)\n` });
  });

  it.skipIf(!hasKubectl)("stopped, the demo stops its edges' process pods (SIGTERM), as a node shutdown does", async () => {
    const kubectl = kubectlIn(dir, demo.kubeconfigPath);
    await writeFile(join(dir, 'marker.json'), JSON.stringify(markerPod('marker', mark())));
    expect((await kubectl('create', '-f', join(dir, 'marker.json'))).code).toBe(0);
    const pid = await markerPid(mark());
    await demo.stop();
    expect(await isRunning(pid)).toBe(false);
    expect(existsSync(`${mark()}.term`)).toBe(true);
    expect(said()).toContain("[demo] edge-1's edge process (pid " + edgePid() + ') exited (exit code 0)');
  });
});
