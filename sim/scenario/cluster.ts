import { Agent } from 'node:http';
import type { ApiClient } from '../../cloud/client/client.js';
import { readCredentials } from '../../cloud/apiserver/auth/credentials.js';
import { createLoopbackClient } from '../../cloud/apiserver/loopback-client.js';
import { remoteHandler } from '../../cloud/apiserver/http/remote-handler.js';
import type { Clock } from '../../shared/clock.js';
import type { DataDirLock } from '../../shared/data-dir-lock.js';
import type { Logger } from '../../shared/log.js';
import type { Pod } from '../../shared/types.js';
import type { ScenarioClouds } from './cloud-step.js';
import { edgeDataDir, startDemo, type Demo } from '../demo.js';
import type { EtcdMemberAction } from '../demo-etcd.js';
import { readMember } from './etcd-reads.js';
import type { MemberRead } from './quorum-probes.js';
import { readContainerFile } from './container-file.js';
import { waitForReadyNodes } from '../fleet-pods.js';
import { actOnEdgeComponent } from './edge-component.js';
import { httpGet } from './http-get.js';
import type { EdgeConnection } from './judge.js';
import type { Reply } from './judge-service.js';
import { flapBy, shapeBy } from '../link-shape-routes.js';
import type { LinkProxy } from '../link-proxy.js';
import type { FlapStep, ShapeStep } from './types.js';

/** What a scenario acts on and looks at: the seam between the runner and a running demo. */
export interface ScenarioCluster {
  readonly api: ApiClient;
  readonly nodes: readonly string[];
  link(node: string, action: 'cut' | 'heal'): void;
  /** Shapes or flaps the node's link (profiles and flaps are in cluster time). */
  shapeLink(step: ShapeStep | FlapStep): void;
  /** Bytes forwarded so far through the node's link, up (edge → cloud) and down. */
  linkBytes(node: string): { up: number; down: number };
  /** Ends the edge process (kill -9 with `crash`) and starts it again (as after a reboot with `reboot`). */
  restartEdge(node: string, how: { crash?: boolean; reboot?: boolean }): Promise<void>;
  component(name: string, action: 'stop' | 'start'): Promise<void>;
  /** Stops or starts an edge's own component (kube-proxy, kedge-cni) through its local API. */
  edgeComponent(node: string, name: string, action: 'stop' | 'start'): Promise<void>;
  /** One HTTP GET from the runner's machine, on a connection of its own (a Service's nodePort, say). */
  httpGet(url: string): Promise<Reply>;
  /** The edge's own view, from its local API. */
  edgePods(node: string): Promise<Pod[]>;
  edgeConnection(node: string): Promise<EdgeConnection>;
  /** A file as the container sees it at `path`, read from the edge's disk. */
  edgeFile(node: string, podUid: string, container: string, path: string): Promise<string>;
  /** The cloud's etcd members, when the scenario runs on etcd. */
  readonly etcd?: ScenarioEtcd;
  stop(): Promise<void>;
  /** Set when the scenario runs several clouds. */
  readonly clouds?: ScenarioClouds;
}

/** The cluster's clouds, for a step or an expectation that needs several. */
export function severalClouds(cluster: ScenarioCluster): ScenarioClouds {
  if (!cluster.clouds) throw new Error('this scenario runs one cloud: set clouds: 2 or more');
  return cluster.clouds;
}

/** A scenario's etcd cluster: its members acted on, and read directly. */
export interface ScenarioEtcd {
  /** Resolves at once with what happened (a start, within a few seconds). */
  act(member: string, action: EtcdMemberAction): Promise<string>;
  /** Every member asked alone, in order. */
  read(consistency: 'linearizable' | 'serializable'): Promise<MemberRead[]>;
}

export interface DemoClusterOptions {
  nodes: number;
  dataDir: string;
  /** The data dir's lock, taken by the caller (the demo releases it when it stops). */
  lock?: DataDirLock;
  timeScale: number;
  /** The cloud on an etcd cluster of this many members; none: the embedded store. */
  etcd?: number;
  /** The edges' MQTT keepalive, seconds of cluster time (default: the demo's). */
  keepaliveSeconds?: number;
  clock: Clock;
  logger: Logger;
  onLine?: (line: string) => void;
  /** Ctrl-C: stops waiting for the nodes (the demo is stopped). */
  signal?: AbortSignal;
}

/** A local API answers within this long, or counts as not answering (an edge restarting). */
const EDGE_TIMEOUT_MS = 2_000;

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(EDGE_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/** A GET of the service expectation answers within this long (real time), or counts as no answer. */
const HTTP_TIMEOUT_MS = 1_000;

/** How long (real time) every node may take to be Ready after the demo started. */
const READY_TIMEOUT_MS = 30_000;

/** Starts a demo on free ports, waits until every node is Ready and wraps it as a ScenarioCluster (admin user). */
export async function startDemoCluster(o: DemoClusterOptions): Promise<ScenarioCluster> {
  const demo = await startDemo({ ...o, apiPort: 0, mqttPort: 0, localApiBasePort: 0 });
  let cluster: ScenarioCluster | undefined;
  try {
    cluster = await demoCluster(demo, o.dataDir, o.clock);
    await waitForReadyNodes(cluster.api, [...cluster.nodes], { clock: o.clock, timeoutMs: READY_TIMEOUT_MS, pollMs: 50, ...(o.signal && { signal: o.signal }) });
    return cluster;
  } catch (err) {
    await (cluster ? cluster.stop() : demo.stop());
    throw err;
  }
}

function scenarioEtcd(demo: Demo, clock: Clock): ScenarioEtcd | undefined {
  const etcd = demo.etcd;
  if (!etcd) return undefined;
  return {
    act: async (member, action) => (await etcd.control.act(member, action)).message,
    read: (consistency) => Promise.all(etcd.members.map((m) => readMember(m, consistency, clock))),
  };
}

async function demoCluster(demo: Demo, dataDir: string, clock: Clock): Promise<ScenarioCluster> {
  const token = (await readCredentials(dataDir))?.admin;
  if (!token) throw new Error(`no admin token in ${dataDir}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const handle = remoteHandler(demo.apiUrl, agent);
  const linkOf = (node: string): LinkProxy => {
    const link = demo.links.get(node);
    if (!link) throw new Error(`no link for node "${node}"`);
    return link;
  };
  const localApi = (node: string): string => {
    const entry = demo.nodes.find((n) => n.name === node);
    if (!entry) throw new Error(`no node "${node}" in this demo`);
    return entry.localApiUrl;
  };
  return {
    api: createLoopbackClient(handle, token),
    nodes: demo.nodes.map((n) => n.name),
    link(node, action) {
      const link = linkOf(node);
      if (action === 'cut') link.cut();
      else link.heal();
    },
    shapeLink(step) {
      const link = linkOf(step.node);
      if (step.kind === 'shape') shapeBy(link, step.request);
      else flapBy(link, step.request);
    },
    linkBytes(node) {
      const { bytesUp, bytesDown } = linkOf(node).state();
      return { up: bytesUp, down: bytesDown };
    },
    async restartEdge(node, how) {
      await demo.restartEdge(node, how);
    },
    async component(name, action) {
      const path = `/kedge/v1/components/${encodeURIComponent(name)}/${action}`;
      const res = await handle({ method: 'POST', path, query: new URLSearchParams(), headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      if (res.status >= 400) {
        const message = res.type === 'json' ? (res.body as { message?: string }).message : undefined;
        throw new Error(`${action} ${name}: ${message ?? `HTTP ${res.status}`}`);
      }
    },
    edgeComponent: (node, name, action) => actOnEdgeComponent(localApi(node), edgeDataDir(dataDir, node), name, action),
    httpGet: (url) => httpGet(url, HTTP_TIMEOUT_MS),
    edgePods: async (node) => (await getJson<{ items: Pod[] }>(`${localApi(node)}/pods`)).items,
    edgeConnection: (node) => getJson<EdgeConnection>(`${localApi(node)}/connection`),
    edgeFile: (node, podUid, container, path) => readContainerFile(edgeDataDir(dataDir, node), podUid, container, path),
    ...(demo.etcd && { etcd: scenarioEtcd(demo, clock) }),
    async stop() {
      await demo.stop();
      agent.destroy();
    },
  };
}
