import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import { startDemo, type Demo } from '../../sim/demo.js';
import { waitFor } from '../support/wait.js';

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const pinned = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name } },
  spec: { nodeName: 'edge-1', containers: [{ name: 'main', image: 'kedge.io/app:1' }] },
});
const containerIds = (pods: Pod[]): Record<string, string | undefined> =>
  Object.fromEntries(pods.map((p) => [p.metadata.name, p.status?.containerStatuses?.[0]?.containerID]));
const allRunning = (pods: Pod[]): boolean => pods.length > 0 && pods.every((p) => p.status?.phase === 'Running');

/** Real `kedge cloud` and `kedge edge` processes, the edge behind a link proxy whose cable is pulled. */
describe('edge autonomy across a pulled cable and a kill -9, with real processes', () => {
  let dir: string;
  let demo: Demo;
  let api: ApiClient;
  /** The test's pods the edge runs (in default: the kube-system agents run there too). */
  const edgePods = async (): Promise<Pod[]> =>
    ((await (await fetch(`${demo.nodes[0]!.localApiUrl}/pods`)).json()) as { items: Pod[] }).items.filter((p) => p.metadata.namespace === 'default');
  const connected = async (): Promise<boolean> => ((await (await fetch(`${demo.nodes[0]!.localApiUrl}/connection`)).json()) as { connected: boolean }).connected;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-autonomy-'));
    demo = await startDemo({ nodes: 1, dataDir: dir, apiPort: 0, mqttPort: 0, localApiBasePort: 0, timeScale: 10, clock: realClock, logger: silentLogger });
    api = createRemoteClient(demo.apiUrl, (await readCredentials(dir))!.admin);
  });
  afterAll(async () => {
    await demo?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps pods running offline and across a crash, then reconciles exactly on heal', async () => {
    for (const name of ['a', 'c']) await api.create(ref(name), pinned(name));
    await waitFor(async () => allRunning((await api.list<Pod>({ resource: 'pods', namespace: 'default' })).items), 'a and c Running', 15_000, 50);
    const before = await edgePods();

    demo.links.get('edge-1')!.cut();
    await waitFor(async () => !(await connected()), 'the edge to notice the cut', 15_000, 50);

    await demo.restartEdge('edge-1', { crash: true });
    const restarted = await waitFor(async () => {
      const pods = await edgePods();
      return pods.length === 2 && allRunning(pods) && pods;
    }, 'the pods back from the cache', 10_000, 20);
    expect(restarted.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
    expect(containerIds(restarted)).toEqual(containerIds(before));
    expect(await connected()).toBe(false);

    await api.delete(ref('a'));
    await api.create(ref('b'), pinned('b'));
    await api.patch(ref('c'), { metadata: { labels: { app: 'c', tier: 'gold' } } });

    demo.links.get('edge-1')!.heal();
    const healed = await waitFor(async () => {
      const pods = await edgePods();
      const names = pods.map((p) => p.metadata.name).sort().join();
      return names === 'b,c' && allRunning(pods) && pods.find((p) => p.metadata.name === 'c')?.metadata.labels?.tier === 'gold' && pods;
    }, 'the edge to run b and the relabelled c, and not a', 15_000, 20);
    expect(containerIds(healed).c).toBe(containerIds(before).c);

    const cloud = await waitFor(async () => {
      const pods = (await api.list<Pod>({ resource: 'pods', namespace: 'default' })).items;
      return pods.length === 2 && allRunning(pods) && pods;
    }, 'the cloud to show b and c Running', 15_000, 50);
    expect(containerIds(cloud)).toEqual(containerIds(healed));
    expect(cloud.map((p) => p.status?.containerStatuses?.[0]?.restartCount)).toEqual([0, 0]);
  });
});
