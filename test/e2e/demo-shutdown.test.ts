import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { killMarker, markerPid, markerPod } from '../support/marker-pod.js';
import { isRunning, killProcessesNaming, liveProcesses } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/**
 * `kedge demo` as a user runs it, with a process pod, ended by Ctrl-C in its terminal (SIGINT
 * to its whole process group) or killed with -9: the pod's process does not outlive it, and
 * `--keep-pods` keeps it.
 */
describe.skipIf(!hasKubectl)('kedge demo ended: what becomes of its process pods', () => {
  let dir: string;
  let demo: RoleProcess | undefined;
  const mark = (): string => join(dir, 'marker');

  /** A demo in its own process group (as in a terminal: its leader), running the marker pod on its one edge. */
  async function demoWithMarker(...extra: string[]): Promise<{ pid: number; processes: number[] }> {
    demo = startRole({
      name: 'demo',
      args: ['demo', '--nodes', '1', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0', '--time-scale', '10', ...extra],
      readyPattern: /^kedge demo ready/,
      clock: realClock,
      ownProcessGroup: true,
    });
    await demo.ready;
    await writeFile(join(dir, 'marker.json'), JSON.stringify(markerPod('marker', mark())));
    expect((await kubectlIn(dir, join(dir, 'kubeconfig'))('create', '-f', join(dir, 'marker.json'))).code).toBe(0);
    const pid = await markerPid(mark());
    // The demo, its cloud and edge, and the pod's shim: every process naming the data dir.
    const processes = (await liveProcesses()).filter((p) => p.args.some((a) => a.startsWith(dir))).map((p) => p.pid);
    return { pid, processes };
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-end-'));
  });
  afterEach(async () => {
    await demo?.kill();
    demo = undefined;
    await killMarker(mark());
    await killProcessesNaming(dir); // --keep-pods leaves the pod's shim, which writes under dir as it sees the pod end
    await rm(dir, { recursive: true, force: true });
  });

  it("Ctrl-C: the edge stops the pod's process (SIGTERM) before it goes", async () => {
    const { pid } = await demoWithMarker();
    process.kill(-demo!.child.pid!, 'SIGINT'); // what a terminal sends on Ctrl-C
    expect(await demo!.exited).toBe(0);
    expect(await isRunning(pid)).toBe(false);
    expect(existsSync(`${mark()}.term`)).toBe(true);
  });

  it('kill -9 of the demo: its edge sees it go, stops the pod, and exits too', async () => {
    const { pid, processes } = await demoWithMarker();
    await demo!.kill();
    await waitFor(async () => !(await isRunning(pid)), "the pod's process gone", 20_000, 50);
    expect(existsSync(`${mark()}.term`)).toBe(true);
    await waitFor(async () => (await Promise.all(processes.map(isRunning))).every((running) => !running), 'the cloud and the edge gone', 20_000, 50);
  });

  it('--keep-pods: the pod runs on after the demo', async () => {
    const { pid } = await demoWithMarker('--keep-pods');
    process.kill(-demo!.child.pid!, 'SIGINT');
    expect(await demo!.exited).toBe(0);
    expect(await isRunning(pid)).toBe(true);
  });
});
