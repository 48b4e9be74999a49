import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { startDemo, type Demo } from '../../sim/demo.js';
import { kedge } from '../support/kedge-cli.js';
import { hasKubectl, kubectlIn } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

const web: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'edge-1', containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };

/** `kedge crictl --node edge-1 ps` on a demo: from the edge process's local API, also while its cable is pulled. */
describe.skipIf(!hasKubectl)('kedge crictl against a running demo', () => {
  let dir: string;
  let demo: Demo;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-crictl-demo-'));
    demo = await startDemo({ nodes: 1, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: 10, clock: realClock, logger: silentLogger });
  });
  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists edge-1's containers with crictl's columns, while edge-1 is cut off from the cloud too", async () => {
    const kubectl = kubectlIn(dir, demo.kubeconfigPath);
    await writeFile(join(dir, 'web.json'), JSON.stringify(web));
    expect((await kubectl('create', '-f', join(dir, 'web.json'))).code).toBe(0);
    await waitFor(async () => (await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.phase}')).stdout === 'Running', 'web Running', 20_000, 100);
    const containerId = (await kubectl('get', 'pod', 'web', '-o', 'jsonpath={.status.containerStatuses[0].containerID}')).stdout;
    expect(containerId).toMatch(/^sim:\/\/[0-9a-f]{32}$/);

    expect((await kedge('link', 'cut', 'edge-1', '--data-dir', dir)).code).toBe(0);
    const connected = async () => ((await (await fetch(`${demo.nodes[0]!.localApiUrl}/connection`)).json()) as { connected: boolean }).connected;
    await waitFor(async () => !(await connected()), 'edge-1 to notice the pulled cable', 15_000, 50);
    const ps = await kedge('crictl', '--node', 'edge-1', '--data-dir', dir, 'ps');
    expect(ps).toMatchObject({ code: 0, stderr: '' });
    expect(ps.stdout).toMatch(/^CONTAINER +IMAGE +CREATED +STATE +NAME +ATTEMPT +POD ID +POD\n/);
    expect(ps.stdout).toMatch(new RegExp(`\\n${containerId.slice('sim://'.length, 'sim://'.length + 13)} +nginx:1.27 +.+ ago +Running +nginx +0 +[0-9a-f]{13} +web\\n`));
    expect((await kedge('link', 'heal', 'edge-1', '--data-dir', dir)).code).toBe(0);
  });
});
