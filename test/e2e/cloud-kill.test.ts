import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import type { NodeSync } from '../../cloud/client/nodesync.js';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { freePort } from '../support/free-port.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import type { Node, ObjectList, Pod } from '../../shared/types.js';
import { startRole, type RoleProcess } from '../../sim/role-process.js';

const SCALE = 10;
const NODES = ['edge-1', 'edge-2', 'edge-3'];

/** Polls an async check on the wall clock (real processes need real time). */
async function until<T>(check: () => Promise<T | false | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wallDelay(50);
  }
}

describe('the cloud is killed with kill -9 while 3 edges are connected', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it('keeps every acknowledged write, resyncs every edge, and restarts no running pod', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-cloud-kill-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'cloud');
    const mqttPort = await freePort();
    const startCloud = (): { role: RoleProcess; ready: Promise<string> } => {
      const role = startRole({
        name: 'cloud',
        args: ['cloud', '--data-dir', dataDir, '--api-port', '0', '--mqtt-port', String(mqttPort), '--store', 'durable', '--time-scale', String(SCALE)],
        readyPattern: /^kedge cloud ready api=\S+ mqtt=\S+ kubeconfig=\S+/,
        clock: realClock,
      });
      cleanup.push(() => role.stop());
      return { role, ready: role.ready };
    };
    const apiOf = (line: string): string => `http://127.0.0.1:${new URL(/api=(\S+)/.exec(line)![1]!).port}`;

    let cloud = startCloud();
    let api = apiOf(await cloud.ready);
    const { admin, edge: edgeToken } = (await readCredentials(dataDir))!;
    const call = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
      const headers: Record<string, string> = { authorization: `Bearer ${admin}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as T };
    };
    const listPods = async (): Promise<Pod[]> => (await call<ObjectList<Pod>>('GET', '/api/v1/namespaces/default/pods')).body.items;
    const createPod = (name: string) =>
      call<Pod>('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] } });

    const edges = new Map<string, EdgeHandle>();
    const synced = new Map<string, number>(NODES.map((n) => [n, 0]));
    for (const [i, node] of NODES.entries()) {
      const edge = await startEdge({
        nodeName: node, brokerUrl: `mqtt://127.0.0.1:${mqttPort}`, token: edgeToken, dataDir: join(dir, node), localApiPort: 0,
        clock: realClock, timing: scaleTiming(defaultTiming, SCALE), logger: silentLogger, podCIDR: `127.32.${i}.0/24`, // the cloud assigns no podCIDR
      });
      edges.set(node, edge);
      cleanup.push(() => edge.stop());
      edge.synced$.subscribe(() => synced.set(node, synced.get(node)! + 1));
    }
    const isReady = (n: Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    await until(async () => (await call<ObjectList<Node>>('GET', '/api/v1/nodes')).body.items.filter((n) => isReady(n) && n.metadata.name!.startsWith('edge-')).length === 3, '3 edges Ready');

    const acknowledged: string[] = [];
    for (let i = 1; i <= 6; i++) if ((await createPod(`web-${i}`)).status === 201) acknowledged.push(`web-${i}`);
    expect(acknowledged).toHaveLength(6);
    const allRunning = (names: string[]) =>
      until(async () => {
        const pods = await listPods();
        return names.every((n) => pods.some((p) => p.metadata.name === n && p.status?.phase === 'Running')) && pods;
      }, `${names.length} pods Running`);
    const before = await allRunning(acknowledged);
    const containersBefore = await containersByPod(edges);
    expect(before.filter((pod) => containersBefore.has(pod.metadata.uid!))).toHaveLength(6); // beside the kube-system agents'

    // Creates keep coming while the cloud dies: the ones answered 201 must survive.
    const writer = (async () => {
      for (let i = 7; ; i++) {
        const res = await createPod(`web-${i}`).catch(() => undefined);
        if (!res) return;
        if (res.status === 201) acknowledged.push(`web-${i}`);
      }
    })();
    await until(async () => acknowledged.length >= 9, 'a few more creates');
    await cloud.role.kill();
    await writer;
    const syncedAtKill = new Map(synced);

    cloud = startCloud();
    api = apiOf(await cloud.ready);
    const after = await allRunning(acknowledged);
    for (const name of acknowledged) expect(after.some((p) => p.metadata.name === name)).toBe(true);

    // Every edge said hello to the new cloud and got its synced [SYNC-10].
    await until(async () => NODES.every((n) => synced.get(n)! > syncedAtKill.get(n)!), 'every edge synced again');
    // No pod that ran before the kill was restarted.
    const containersAfter = await containersByPod(edges);
    for (const pod of before) {
      const uid = pod.metadata.uid!;
      expect(containersAfter.get(uid)).toBe(containersBefore.get(uid));
      const now = after.find((p) => p.metadata.uid === uid)!;
      expect(now.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    }
    // The ledger in the store matches what each edge holds.
    await until(async () => {
      const syncs = (await call<ObjectList<NodeSync>>('GET', '/apis/sync.kedge.io/v1/nodesyncs')).body.items;
      // Every namespace: an edge holds its kube-system agents' pods too.
      const pods = (await call<ObjectList<Pod>>('GET', '/api/v1/pods')).body.items;
      return syncs.length === 3 && syncs.every((s) => {
        const want = pods.filter((p) => p.spec.nodeName === s.metadata.name).map((p) => p.metadata.uid).sort();
        const held = Object.entries(s.status?.objects ?? {}).filter(([, o]) => o.kind === 'Pod'); // beside its Node and Services [SYNC-19]
        return JSON.stringify(held.map(([uid]) => uid).sort()) === JSON.stringify(want);
      });
    }, 'NodeSyncs match the pods');
  });
});

/** pod uid → id of its running container, over every edge's runtime. */
async function containersByPod(edges: Map<string, EdgeHandle>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const edge of edges.values()) for (const k of await edge.runtime.listContainers()) if (k.state === 'running') out.set(k.podUid, k.id);
  return out;
}
