import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSameProcess, signalGroup } from '../../edge/runtime/proc-stat.js';
import type { ProcessState } from '../../edge/runtime/process-state.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { kedgeBin, readyField, startRole, type RoleProcess } from '../../sim/role-process.js';
import { hasKubectl, KUBECTL } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

/** Why this machine cannot run the test, or undefined. */
function cannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return 'it needs root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return '`ip netns` is unavailable';
  }
  if (!hasKubectl) return 'kubectl is not on PATH';
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'curl is not installed';
  }
  return undefined;
}
const skipReason = cannotRun();
if (skipReason) console.warn(`multi-host e2e (cloud and edges in network namespaces) skipped: ${skipReason}`);

const SCALE = 10;
const GRACE_MS = scaleTiming(defaultTiming, SCALE).nodeMonitorGraceMs;
const net = 16 + (process.pid % 200);
const cloudNs = `kedge-${process.pid}-cloud`;
/** One veth pair per edge: 10.<net>.<i>.1 in the cloud's namespace, 10.<net>.<i>.2 in the edge's. */
const edges = [1, 2].map((i) => ({
  node: `edge-${i}`, ns: `kedge-${process.pid}-edge-${i}`, cloudLink: `k${process.pid}c${i}`, edgeLink: `k${process.pid}e${i}`,
  cloudIp: `10.${net}.${i}.1`, edgeIp: `10.${net}.${i}.2`,
}));
const [edge1, edge2] = edges as [typeof edges[0], typeof edges[0]];

interface Run { code: number; stdout: string; stderr: string }
/** `ip netns exec <ns> <file> <args…>`, with `input` on stdin. */
function inNs(ns: string, file: string, args: string[], input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile('ip', ['netns', 'exec', ns, file, ...args], { timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
    // A command that exits before reading its input (curl refused, say) closes the pipe: its exit code tells.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
  });
}
const ip = (...args: string[]): void => void execFileSync('ip', args, { stdio: 'pipe' });

/** `kedge <args>` in a namespace (`ip netns exec` execs node: the child is the role itself). */
const startIn = (ns: string, args: string[], readyPattern: RegExp): RoleProcess =>
  startRole({ name: `${args[0]} in ${ns}`, args, readyPattern, clock: realClock, within: ['ip', 'netns', 'exec', ns] });
/** Process-runtime containers outlive their edge by design: end those an edge's data dir records. */
async function killContainers(edgeDir: string): Promise<void> {
  const state = JSON.parse(await readFile(join(edgeDir, 'process-runtime.json'), 'utf8').catch(() => '{}')) as Partial<ProcessState>;
  for (const c of state.containers ?? []) if (c.pid && (await isSameProcess({ pid: c.pid, startTime: c.startTime, bootId: c.bootId }))) signalGroup(c.pid, 'SIGKILL');
}

const pod = (name: string, node: string, runtime: 'sim' | 'process'): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { test: 'multi-host' } },
  spec: {
    nodeName: node, runtimeClassName: runtime,
    containers: [{ name: 'main', image: 'kedge.io/app:1', ...(runtime === 'process' ? { command: [process.execPath, '-e', 'setInterval(() => {}, 1 << 30)'] } : {}) }],
  },
});
const podsOf = (node: string): Pod[] => [pod(`sim-a-${node}`, node, 'sim'), pod(`sim-b-${node}`, node, 'sim'), pod(`proc-${node}`, node, 'process')];
const isRunning = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((s) => s.ready && s.state?.running);
/** What must not change while a pod keeps running: its uid, container id, start time and restarts. */
const fingerprints = (pods: Pod[]): Record<string, string> => Object.fromEntries(pods.map((p) => {
  const s = p.status?.containerStatuses?.[0];
  return [p.metadata.name!, `${p.metadata.uid} ${s?.containerID} ${s?.state?.running?.startedAt} restarts=${s?.restartCount}`];
}));
const readyStatus = (n: Node): string | undefined => n.status?.conditions?.find((c) => c.type === 'Ready')?.status;

/** A cloud and two edges on three "machines" (network namespaces joined by veth pairs), over TLS. */
describe.skipIf(skipReason !== undefined)('cloud and edges in separate network namespaces, one link taken down', () => {
  let dir: string;
  const roles: RoleProcess[] = [];
  const namespaces: string[] = [];
  const localApis = new Map<string, string>();

  /** The real kubectl, run inside the cloud's namespace with the admin kubeconfig. */
  const kubectlWith = async (input: string, ...args: string[]): Promise<string> => {
    const run = await inNs(cloudNs, KUBECTL, ['--kubeconfig', join(dir, 'cloud', 'kubeconfig'), '--cache-dir', join(dir, 'kube-cache'), ...args], input);
    if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };
  const kubectl = (...args: string[]): Promise<string> => kubectlWith('', ...args);
  const cloudPods = async (): Promise<Pod[]> => (JSON.parse(await kubectl('get', 'pods', '-o', 'json')) as { items: Pod[] }).items;
  /** The Ready condition's status of every node, as the cloud sees it. */
  const cloudReady = async (): Promise<Record<string, string | undefined>> =>
    Object.fromEntries((JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as { items: Node[] }).items.map((n) => [n.metadata.name!, readyStatus(n)]));
  /** GET on an edge's local API, from inside the edge's namespace. */
  const local = async <T>(e: typeof edge1, path: string): Promise<T> => {
    const run = await inNs(e.ns, 'curl', ['-sS', '--max-time', '5', `${localApis.get(e.node)}${path}`]);
    if (run.code !== 0) throw new Error(`${e.node} local API ${path}: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };
  /** The test's pods an edge runs (in default: the kube-system agents run there too). */
  const edgePods = async (e: typeof edge1): Promise<Pod[]> => (await local<{ items: Pod[] }>(e, '/pods')).items.filter((p) => p.metadata.namespace === 'default');
  const connected = async (e: typeof edge1): Promise<boolean> => (await local<{ connected: boolean }>(e, '/connection')).connected;
  const onNode = (pods: Pod[], node: string): Pod[] => pods.filter((p) => p.spec?.nodeName === node);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-multi-host-'));
    for (const ns of [cloudNs, ...edges.map((e) => e.ns)]) {
      ip('netns', 'add', ns);
      namespaces.push(ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    for (const e of edges) {
      ip('link', 'add', e.cloudLink, 'netns', cloudNs, 'type', 'veth', 'peer', 'name', e.edgeLink, 'netns', e.ns);
      ip('-n', cloudNs, 'addr', 'add', `${e.cloudIp}/24`, 'dev', e.cloudLink);
      ip('-n', e.ns, 'addr', 'add', `${e.edgeIp}/24`, 'dev', e.edgeLink);
      ip('-n', cloudNs, 'link', 'set', e.cloudLink, 'up');
      ip('-n', e.ns, 'link', 'set', e.edgeLink, 'up');
    }
    // The serving certificate covers the addresses the namespace has now: the links come first.
    // Advertised where edge-1 reaches it (edge-2's link is another subnet): the kubernetes Service's endpoint.
    const cloud = startIn(cloudNs, ['cloud', '--bind', '0.0.0.0', '--advertise-address', edge1.cloudIp, '--data-dir', join(dir, 'cloud'), '--time-scale', String(SCALE)], /^kedge cloud ready /);
    roles.push(cloud);
    expect(readyField(await cloud.ready, 'api')).toBe('https://127.0.0.1:6443');
    await Promise.all(edges.map(async (e) => {
      const created = await inNs(cloudNs, process.execPath, [kedgeBin, 'token', 'create', '--node', e.node, '--data-dir', join(dir, 'cloud')]);
      expect(created.code, created.stderr).toBe(0);
      const token = created.stdout.trim().split('\n').at(-1)!;
      const edge = startIn(e.ns, ['edge', '--node', e.node, '--cloud', `https://${e.cloudIp}:6443`, '--token', token,
        '--data-dir', join(dir, e.node), '--time-scale', String(SCALE)], /^kedge edge \S+ ready /);
      roles.push(edge);
      localApis.set(e.node, readyField(await edge.ready, 'local-api'));
    }));
  }, 30_000);

  afterAll(async () => {
    await Promise.all(roles.map((r) => r.stop()));
    for (const e of edges) if (dir) await killContainers(join(dir, e.node));
    for (const ns of namespaces) {
      try {
        ip('netns', 'del', ns); // takes its veth ends along
      } catch (err) {
        console.warn(`could not delete network namespace ${ns}: ${(err as Error).message}`);
      }
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 20_000);

  it('keeps edge-1 running its pods through a partition of twice the grace period, then reconciles exactly what changed meanwhile', async () => {
    const all = edges.flatMap((e) => podsOf(e.node));
    await kubectlWith(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: all }), 'apply', '--validate=false', '-f', '-');
    const before = await waitFor(async () => {
      const pods = await cloudPods();
      return pods.length === all.length && pods.every(isRunning) && pods;
    }, 'every pod Running in the cloud', 20_000, 200);
    for (const e of edges) expect(onNode(before, e.node)).toHaveLength(3);
    const edge1Before = fingerprints(await edgePods(edge1));
    expect(edge1Before).toEqual(fingerprints(onNode(before, edge1.node)));
    expect(await connected(edge1)).toBe(true);

    // Pull edge-1's cable: its veth end in the cloud's namespace goes down, packets stop both ways.
    const cutAt = performance.now();
    ip('-n', cloudNs, 'link', 'set', edge1.cloudLink, 'down');
    // Work for edge-1 while it is away: one pod more, one pod less; it must get exactly that after heal.
    const late = pod(`late-${edge1.node}`, edge1.node, 'sim');
    const gone = `sim-b-${edge1.node}`;
    await kubectlWith(JSON.stringify(late), 'apply', '--validate=false', '-f', '-');
    await kubectl('delete', 'pod', gone, '--wait=false');
    let sawOffline = false;
    let sawUnknown = false;
    while (performance.now() - cutAt < 2 * GRACE_MS) {
      const [pods1, online1, online2, ready, pods] = await Promise.all([edgePods(edge1), connected(edge1), connected(edge2), cloudReady(), cloudPods()]);
      expect(fingerprints(pods1), 'edge-1 runs the same containers, not restarted').toEqual(edge1Before);
      expect(pods1.every(isRunning), 'edge-1 reports its pods Running').toBe(true);
      sawOffline ||= !online1;
      sawUnknown ||= ready[edge1.node] === 'Unknown';
      expect([ready[edge2.node], online2], 'edge-2 stays Ready and connected').toEqual(['True', true]);
      expect(onNode(pods, edge2.node).every(isRunning), 'edge-2 pods stay Running').toBe(true);
      await wallDelay(100);
    }
    expect(sawOffline, "edge-1's /connection said connected=false").toBe(true);
    expect(sawUnknown, 'the cloud marked edge-1 Unknown').toBe(true);
    expect(await connected(edge1)).toBe(false);
    expect((await cloudReady())[edge1.node]).toBe('Unknown');

    ip('-n', cloudNs, 'link', 'set', edge1.cloudLink, 'up');
    await waitFor(async () => await connected(edge1), 'edge-1 connected again', 15_000, 200);
    const after = await waitFor(async () => {
      const [pods, ready] = await Promise.all([cloudPods(), cloudReady()]);
      const settled = pods.length === all.length && !pods.some((p) => p.metadata.name === gone);
      return settled && ready[edge1.node] === 'True' && pods.every(isRunning) && pods.every((p) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True') && pods;
    }, 'edge-1 Ready and every pod Running and Ready in the cloud', 15_000, 200);
    const expected = [...all.map((p) => p.metadata.name!).filter((n) => n !== gone), late.metadata.name!].sort();
    expect(after.map((p) => p.metadata.name).sort(), 'no pod lost or duplicated').toEqual(expected);
    const kept = (f: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(f).filter(([name]) => name !== gone && name !== late.metadata.name));
    expect(kept(fingerprints(after)), 'the pods that stayed were never restarted').toEqual(kept(fingerprints(before)));
    const edge1After = await waitFor(async () => {
      const pods = await edgePods(edge1);
      return pods.length === 3 && pods;
    }, 'edge-1 holding exactly its pods', 10_000, 200);
    expect(edge1After.map((p) => p.metadata.name).sort()).toEqual([late.metadata.name, `proc-${edge1.node}`, `sim-a-${edge1.node}`].sort());
    expect(kept(fingerprints(edge1After))).toEqual(kept(edge1Before));
    expect(await connected(edge1)).toBe(true);
  }, 60_000);

  it("lists the cloud at its advertised address in the kubernetes Service, which a pod on edge-1 reaches the API through", async () => {
    expect(await kubectl('get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[0].addresses[*].ip}:{.subsets[0].ports[0].port}')).toBe(`${edge1.cloudIp}:6443`);
    // $KUBERNETES_SERVICE_HOST:PORT is edge-1's kube-proxy portal for default/kubernetes, which forwards to the Endpoints.
    const healthz = "require('https').get({ host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT, path: '/healthz', rejectUnauthorized: false }, (r) => r.pipe(process.stdout)).on('error', (e) => { console.log(e.message); process.exitCode = 1; })";
    const probe: Pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-probe' },
      spec: { nodeName: edge1.node, runtimeClassName: 'process', restartPolicy: 'Never', containers: [{ name: 'main', image: 'kedge.io/app:1', command: [process.execPath, '-e', healthz] }] },
    };
    await kubectlWith(JSON.stringify(probe), 'apply', '--validate=false', '-f', '-');
    const phase = await waitFor(async () => {
      const p = (await cloudPods()).find((x) => x.metadata.name === 'api-probe')?.status?.phase;
      return (p === 'Succeeded' || p === 'Failed') && p;
    }, 'the probe pod to finish', 20_000, 200);
    expect([phase, await kubectl('logs', 'api-probe')]).toEqual(['Succeeded', 'ok\n']);
  }, 30_000);
});
