import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import type { DemoFile } from '../../sim/demo-file.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pinned' }, spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/app:1' }] } };
/** What says whether the container ran on or was started again: its id, its start, its restarts. */
const containerOf = (pod: Pod) => {
  const c = pod.status?.containerStatuses?.[0];
  return { phase: pod.status?.phase, id: c?.containerID, startedAt: c?.state.running?.startedAt, restartCount: c?.restartCount };
};

/**
 * The contract, with real processes: with the demo stopped, `: > <data-dir>/edges/edge-1/cache.json`,
 * then `kedge demo` (what `npm start` runs) on the same data dir: edge-1 is Ready and runs its pods
 * again, their containers not restarted (the sim runtime adopts them). Then the same with the
 * last good copy gone too.
 */
describe.skipIf(!hasKubectl)('kedge demo on a data dir whose edge-1 cache.json was emptied', () => {
  let dir: string;
  let demo: RoleProcess | undefined;
  let lines: string[] = [];
  const cacheFile = (): string => join(dir, 'edges', 'edge-1', 'cache.json');

  async function startDemo(): Promise<void> {
    lines = [];
    demo = startRole({
      name: 'demo',
      args: ['demo', '--nodes', '2', '--data-dir', dir, '--api-port', '0', '--mqtt-port', '0', '--local-api-base-port', '0', '--time-scale', '10'],
      readyPattern: /^kedge demo ready: 1 cloud, 2 edges/,
      clock: realClock,
      onLine: (line) => lines.push(line),
    });
    await demo.ready;
  }
  async function stopDemo(): Promise<void> {
    demo!.child.kill('SIGINT'); // Ctrl-C
    expect(await demo!.exited).toBe(0);
    demo = undefined;
  }
  const kubectl = (...args: string[]) => kubectlIn(dir, join(dir, 'kubeconfig'))(...args);
  const pinned = async (): Promise<Pod> => JSON.parse((await kubectl('get', 'pod', 'pinned', '-o', 'json')).stdout) as Pod;
  const edgePods = async (): Promise<Pod[]> => {
    const file = JSON.parse(await readFile(join(dir, 'demo.json'), 'utf8')) as DemoFile;
    const url = file.nodes.find((n) => n.name === 'edge-1')!.localApiUrl;
    return ((await (await fetch(`${url}/pods`)).json()) as { items: Pod[] }).items;
  };
  const edge1Ready = async (): Promise<boolean> => /^edge-1\s+Ready\s/m.test((await kubectl('get', 'nodes', '--no-headers')).stdout);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-demo-cache-'));
    await startDemo();
  });
  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('edge-1 comes back Ready and runs its pods again, the same containers', async () => {
    await writeFile(join(dir, 'pinned.json'), JSON.stringify(POD));
    expect((await kubectl('create', '-f', join(dir, 'pinned.json'))).code).toBe(0);
    const before = await waitFor(async () => {
      const seen = containerOf(await pinned());
      return seen.phase === 'Running' && seen;
    }, 'the pod Running on edge-1', 15_000, 100);
    await stopDemo();

    for (const lost of ['cache.json emptied', 'cache.json emptied and no good copy']) {
      await writeFile(cacheFile(), ''); // : > cache.json
      if (lost.endsWith('no good copy')) await rm(`${cacheFile()}.prev`, { force: true });
      await startDemo();
      const warned = lines.filter((l) => l.includes('[edge-1]') && l.includes(' WARN ') && l.includes(`${cacheFile()} is empty`));
      expect(warned, lost).toHaveLength(1);
      await waitFor(edge1Ready, `edge-1 Ready (${lost})`, 15_000, 100);
      // edge-1's own view, after its restart (its local API answers after its first sync).
      const after = await waitFor(async () => {
        const pod = (await edgePods()).find((p) => p.metadata.name === 'pinned');
        return pod && containerOf(pod).phase === 'Running' && containerOf(pod);
      }, `the pod Running again on edge-1 (${lost})`, 15_000, 100);
      expect(after, lost).toEqual(before);
      await stopDemo();
    }
  });
});
