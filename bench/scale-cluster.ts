import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { POD_STARTUP_PATH } from '../cloud/apiserver/pipeline.js';
import type { StartupMarks } from '../shared/trace/pod-startup-trace.js';
import { readCredentials } from '../cloud/apiserver/auth/credentials.js';
import { createRemoteClient } from '../cloud/apiserver/http/remote-handler.js';
import type { ApiClient } from '../cloud/client/client.js';
import { realClock, wallDelay } from '../shared/clock.js';
import type { Node, Pod } from '../shared/types.js';
import { FLEET_FILE } from '../sim/fleet.js';
import { readyField, startRole, type RoleProcess } from '../sim/role-process.js';

/** A `kedge cloud` process and a `kedge fleet` process of hollow edges behind link proxies. */
export interface ScaleCluster {
  cloud: RoleProcess;
  podStartups: BenchCloud['podStartups'];
  fleet: RoleProcess;
  api: ApiClient;
  control(path: string, method?: 'GET' | 'POST'): Promise<unknown>;
  stop(): Promise<void>;
}

const log = (line: string): void => void (/ERROR/.test(line) && process.stderr.write(line + '\n'));

/** A `kedge cloud` process of the benches and an admin client of its API. */
export interface BenchCloud {
  cloud: RoleProcess;
  api: ApiClient;
  mqtt: string;
  /** The cloud's join token for edges. */
  edgeToken: string;
  /** The pod startup trace of a cloud started with --trace-pod-startup. */
  podStartups(): Promise<Record<string, StartupMarks>>;
}

/** The cloud's flags for the embedded durable store, and for etcd at these members. */
export const DURABLE_STORE_ARGS = ['--store', 'durable'];
export const etcdStoreArgs = (etcd: { endpoints: readonly string[] }): string[] => ['--store', 'etcd', '--etcd-endpoints', etcd.endpoints.join(',')];

export async function startBenchCloud(dir: string, storeArgs: readonly string[] = DURABLE_STORE_ARGS, extraArgs: readonly string[] = []): Promise<BenchCloud> {
  const cloud = startRole({
    name: 'cloud',
    // Hollow edges run no agents: the kube-system DaemonSets would only add two pods a node to what is measured.
    args: ['cloud', '--data-dir', join(dir, 'cloud'), '--api-port', '0', '--mqtt-port', '0', ...storeArgs, '--no-agent-daemonsets', ...extraArgs],
    readyPattern: /^kedge cloud ready /,
    clock: realClock,
    onLine: log,
  });
  const ready = await cloud.ready;
  const creds = (await readCredentials(join(dir, 'cloud')))!;
  const apiUrl = readyField(ready, 'api');
  const podStartups = async (): Promise<Record<string, StartupMarks>> => {
    const res = await fetch(`${apiUrl.replace(/^https:/, 'http:')}${POD_STARTUP_PATH}`, { headers: { authorization: `Bearer ${creds.admin}` } });
    if (!res.ok) throw new Error(`GET ${POD_STARTUP_PATH}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, StartupMarks>;
  };
  return { cloud, api: createRemoteClient(apiUrl, creds.admin), mqtt: readyField(ready, 'mqtt'), edgeToken: creds.edge, podStartups };
}

export async function startScaleCluster(dir: string, nodes: number, storeArgs?: readonly string[]): Promise<ScaleCluster> {
  const { cloud, api, mqtt, edgeToken, podStartups } = await startBenchCloud(dir, storeArgs, ['--trace-pod-startup']);
  const fleet = startRole({
    name: 'fleet',
    args: ['fleet', '--nodes', String(nodes), '--broker', mqtt, '--token', edgeToken, '--data-dir', join(dir, 'fleet'), '--links', '--trace-pod-startup'],
    readyPattern: /^kedge fleet ready /,
    clock: realClock,
    onLine: log,
  });
  const controlUrl = readyField(await fleet.ready, 'control');
  const { controlToken } = JSON.parse(await readFile(join(dir, 'fleet', FLEET_FILE), 'utf8')) as { controlToken: string };
  const control = async (path: string, method: 'GET' | 'POST' = 'GET'): Promise<unknown> => {
    const res = await fetch(`${controlUrl}${path}`, { method, headers: { authorization: `Bearer ${controlToken}` } });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  // The cloud's marks and the edges', by pod.
  const allStartups = async (): Promise<Record<string, StartupMarks>> => {
    const [cloudMarks, edgeMarks] = await Promise.all([podStartups(), control('/debug/pod-startups') as Promise<Record<string, StartupMarks>>]);
    return Object.fromEntries(Object.entries(cloudMarks).map(([pod, marks]) => [pod, { ...marks, ...edgeMarks[pod] }]));
  };
  return {
    cloud,
    podStartups: allStartups,
    fleet,
    api,
    control,
    async stop() {
      await fleet.stop(30_000);
      await cloud.stop(30_000);
    },
  };
}

/** Polls `check` until it holds; a check that fails (the API busy: a 504, a 503) counts as not yet, until the deadline. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number, everyMs = 500): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  const holds = (): Promise<boolean> =>
    check().catch((err: unknown) => {
      lastError = err;
      return false;
    });
  while (!(await holds())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last check failed: ${String(lastError)})` : ''}`);
    await wallDelay(everyMs);
  }
}

/** The edges Ready (not the cloud's own control-plane node). */
export async function readyNodes(api: ApiClient): Promise<number> {
  const list = await api.list<Node>({ resource: 'nodes' });
  const edge = (n: Node): boolean => n.metadata.labels?.['node-role.kubernetes.io/control-plane'] === undefined;
  return list.items.filter((n) => edge(n) && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

export const benchPod = (name: string, node?: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'scale' } },
  spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'main', image: 'kedge.io/bench:1' }] },
});
