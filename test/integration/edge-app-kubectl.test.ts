import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { repoRoot } from '../../shared/repo-paths.js';
import { ProcessRuntime } from '../../edge/runtime/process-runtime.js';
import { Cluster } from '../../sim/local-cluster.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';
import { testNetwork } from '../support/test-network.js';

const MANIFEST = join(repoRoot, 'examples', 'edge-app.yaml');
const NODES = ['edge-1', 'edge-2'];

/**
 * examples/edge-app.yaml, as written, applied with the real kubectl to two edges that run real
 * processes: one sensor pod per edge, Running, whose log shows the ConfigMap's config and only
 * the start of the Secret's token, and whose readings land in the edge's hostPath. The cluster
 * runs on the real clock (kubectl does anyway); every wait is kubectl's own or on the disk.
 */
describe.skipIf(!hasKubectl)('kubectl apply -f examples/edge-app.yaml', () => {
  let cluster: Cluster | undefined;
  let home: string;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(home, cluster!.cloud.kubeconfigPath)(...args);

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'kedge-edge-app-'));
    cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: NODES.length });
  });
  afterAll(async () => {
    if (cluster) {
      await kubectl('delete', '-f', MANIFEST, '--wait=false');
      const c = cluster;
      await waitFor(async () => (await Promise.all(NODES.map(async (n) => (await c.edge(n).runtime.listContainers()).length))).every((n) => n === 0), 'the sensors stopped', 20_000, 100).catch(() => undefined);
      const dirs = NODES.map((n) => join(c.dir, 'edges', n));
      await c.stop().catch(() => undefined);
      // Whatever still runs (a sensor the edge had no time to stop) ends with a simulated reboot.
      for (const dataDir of dirs) await (await ProcessRuntime.open({ network: testNetwork(), dataDir, clock: realClock, reboot: true }).catch(() => undefined))?.close();
      await rm(c.dir, { recursive: true, force: true }); // that runtime made its state dirs again
    }
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  it('creates the ConfigMap, the Secret and the DaemonSet', async () => {
    expect(await kubectl('apply', '-f', MANIFEST)).toMatchObject({ code: 0, stdout: 'configmap/sensor-config created\nsecret/sensor-secret created\ndaemonset.apps/sensor created\n' });
  });

  it('runs one sensor pod per edge, Running', async () => {
    expect((await kubectl('rollout', 'status', 'ds/sensor', '--timeout=30s')).code).toBe(0);
    const pods = await kubectl('get', 'pods', '-l', 'app=sensor', '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{"\\n"}{end}');
    expect(pods.stdout.trim().split('\n').sort()).toEqual(NODES.map((n) => `${n} Running`));
  });

  it('logs the config from the mounted ConfigMap, and the Secret token from env only in part', async () => {
    let logs: Run | undefined;
    await waitFor(async () => {
      logs = await kubectl('logs', '-l', 'app=sensor', '--prefix');
      return logs.stdout.split('config: unit=celsius interval=5').length - 1 === NODES.length;
    }, 'both sensors to log their config', 20_000, 200).catch(() => undefined);
    expect(logs?.stdout.split('\n').filter((l) => l.includes('config: ')).sort()).toEqual(
      NODES.map(() => expect.stringMatching(/^\[pod\/sensor-[a-z0-9]{5}\/sensor\] config: unit=celsius interval=5$/)),
    );
    for (const node of NODES) expect(logs?.stdout).toContain(`sensor on ${node}, token s3ns... (21 characters)`);
    expect(logs?.stdout).not.toContain('s3nsor-t0ken-4f9c2a7e');
  });

  it("appends readings to the hostPath under each edge's host root", async () => {
    const readings = (node: string): Promise<string> => readFile(join(cluster!.dir, 'edges', node, 'host', 'var', 'lib', 'sensor', 'readings.log'), 'utf8').catch(() => '');
    await waitFor(async () => (await Promise.all(NODES.map(readings))).every((text) => text.length > 0), 'a reading on each edge', 20_000, 200);
    for (const node of NODES) expect((await readings(node)).split('\n')[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ ${node} \\d+\\.\\d celsius$`));
  });
});
