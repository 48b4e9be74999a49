import { join, resolve } from 'node:path';
import { fnv32a } from '../cloud/controllers/deployment/hash.js';
import { newToken, readCredentials, readEdgeToken } from '../cloud/apiserver/auth/credentials.js';
import type { Clock } from '../shared/clock.js';
import { FOR_PARENT_ENV, lockDataDir, type DataDirLock } from '../shared/data-dir-lock.js';
import type { Logger } from '../shared/log.js';
import { startControlApi } from './control-api.js';
import { mintDashboardUrl } from './dashboard-link.js';
import { DemoEdges } from './demo-edges.js';
import { refuseMixedStores, startDemoEtcd, type DemoEtcd } from './demo-etcd.js';
import { DEMO_COMMAND, demoFilePath, edgeDataDir, kedgeCommandFor, removeDemoFile, writeDemoFile, type DemoNode } from './demo-file.js';
import { startLinkProxy, type LinkProxy } from './link-proxy.js';
import { startLinkSink } from './link-sink.js';
import { readyField, startRole, type RoleProcess } from './role-process.js';

export interface DemoOptions {
  nodes: number;
  dataDir: string;
  /** 0 picks a free port (as does mqttPort). */
  apiPort: number;
  mqttPort: number;
  timeScale: number;
  /** Edge i's local API listens on localApiBasePort + i; 0 gives every edge a free port. */
  localApiBasePort: number;
  clock: Clock;
  logger: Logger;
  onLine?: (line: string) => void;
  /** More flags for every role process (the cloud and the edges), e.g. --log-format json. */
  roleArgs?: readonly string[];
  /** The data dir's lock, taken by the caller; released when the demo stops. None: the demo takes it. */
  lock?: DataDirLock;
  /** Leave the edges' process pods running when the demo ends (by default they stop, as in a node shutdown). */
  keepPods?: boolean;
  /** Run the cloud on a real etcd cluster of this many members (sim/demo-etcd.ts); none: the embedded store. */
  etcd?: number;
  /** The edges' MQTT keepalive in seconds of cluster time (default DEMO_KEEPALIVE_SECONDS; a weak link wants 10). */
  keepaliveSeconds?: number;
}

/**
 * The demo's edges use a shorter MQTT keepalive than `kedge edge` (10 s): a pulled cable is
 * still noticed by keepalive alone, within 1.5 × 2 s instead of 15 s. The cloud's timing (node
 * status every 10 s, Unknown after 40 s) is the same.
 */
export const DEMO_KEEPALIVE_SECONDS = 2;
/** Every container on a demo edge finds `host:port` of its link's sink listener here (docs/operations.md). */
export const LINK_SINK_ENV = 'KEDGE_LINK_SINK';
/** When the demo ends, its edges stop their process pods as a node shutdown does: each gets at most this long after SIGTERM. */
const DEMO_SHUTDOWN_GRACE_SECONDS = 10;

export interface Demo {
  readonly kubeconfigPath: string;
  readonly apiUrl: string;
  /** The cloud's broker. Edges do not dial it directly: each goes through its link proxy. */
  readonly brokerUrl: string;
  /** The control API `kedge link` talks to. */
  readonly controlUrl: string;
  /** The dashboard with a one-time login token: the first browser to open it is logged in. */
  readonly dashboardUrl: string;
  readonly demoFilePath: string;
  readonly cloud: RoleProcess;
  readonly edges: Map<string, RoleProcess>;
  /** One chaos proxy per edge, between it and the broker. */
  readonly links: Map<string, LinkProxy>;
  readonly nodes: DemoNode[];
  /** With DemoOptions.etcd: its members. */
  readonly etcd?: DemoEtcd;
  /**
   * Ends an edge process (`kill -9` with `crash`, else SIGTERM) and starts it again with the
   * same data dir; `reboot` starts it as after a node reboot. Resolves once it is ready.
   */
  restartEdge(node: string, how?: { crash?: boolean; reboot?: boolean }): Promise<RoleProcess>;
  stop(): Promise<void>;
}

export { edgeDataDir };

/** What an edge may take to stop, on top of its pods' shutdown grace period. */
const EDGE_STOP_MARGIN_MS = 5_000;

/**
 * Edge i's node address (`--node-ip`): 127.0.1.i on Linux, where all of 127.0.0.0/8 is
 * loopback, so every edge has its own INTERNAL-IP and NodePort listeners of two edges do not
 * collide. Elsewhere 127.0.0.1 (macOS answers only 127.0.0.1 unless aliases are added to lo0).
 */
export function demoNodeIp(index: number, platform: NodeJS.Platform = process.platform): string {
  return platform === 'linux' && index >= 1 && index <= 254 ? `127.0.1.${index}` : '127.0.0.1';
}

/**
 * The demo's pod network: a /16 of 127.64.0.0/10 picked by its data dir's path, so that two
 * demos on one machine (two checkouts, or tests running side by side) hand out different pod
 * addresses, and one demo started again keeps its own.
 */
export function demoClusterCidr(dataDir: string): string {
  return `127.${64 + (fnv32a(dataDir) % 64)}.0.0/16`;
}

function hostAndPort(url: URL): { host: string; port: number } {
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 1883) };
}

/**
 * Runs a cloud and `nodes` edges (edge-1 … edge-N) as separate processes, each edge behind
 * its own link proxy, and writes `<data-dir>/demo.json` for `kedge link` (removed on stop).
 */
export async function startDemo(o: DemoOptions): Promise<Demo> {
  const dataDir = resolve(o.dataDir);
  // The demo holds its data dir; its cloud works for it there, each edge holds its own below.
  const lock = o.lock ?? (await lockDataDir(dataDir, { command: DEMO_COMMAND, logger: o.logger }));
  const roleFlags = ['--time-scale', String(o.timeScale), ...(o.roleArgs ?? [])];
  const stops: (() => Promise<void>)[] = [() => lock.release()];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const s of stops.reverse()) await s().catch((err: unknown) => o.logger.warn(`stop: ${(err as Error).message}`));
    })());

  let etcd: DemoEtcd | undefined;
  try {
    await refuseMixedStores(dataDir, o.etcd);
    if (o.etcd) etcd = await startDemoEtcd({ size: o.etcd, dataDir, clock: o.clock });
  } catch (err) {
    await stop();
    throw err;
  }
  if (etcd) stops.push(() => etcd.close());
  const cloud = startRole({
    name: 'cloud',
    args: ['cloud', '--data-dir', dataDir, '--api-port', String(o.apiPort), '--mqtt-port', String(o.mqttPort), '--cluster-cidr', demoClusterCidr(dataDir), ...(etcd?.cloudArgs ?? []), ...roleFlags],
    readyPattern: /^kedge cloud ready /,
    clock: o.clock,
    onLine: o.onLine,
    env: { [FOR_PARENT_ENV]: '1' },
  });
  stops.push(() => cloud.stop());
  const links = new Map<string, LinkProxy>();
  try {
    const ready = await cloud.ready;
    const apiUrl = readyField(ready, 'api');
    const brokerUrl = readyField(ready, 'mqtt');
    const broker = new URL(brokerUrl);
    const token = await readEdgeToken(dataDir);
    const proxyUrls = new Map<string, string>();
    const sink = await startLinkSink();
    stops.push(() => sink.close());
    for (let i = 1; i <= o.nodes; i++) {
      const node = `edge-${i}`;
      const link = await startLinkProxy({ name: node, target: hostAndPort(broker), sink, clock: o.clock, timeScale: o.timeScale, logger: o.logger.child('links') });
      stops.push(() => link.close());
      links.set(node, link);
      proxyUrls.set(node, `${broker.protocol}//${link.host}:${link.port}`);
    }
    const nodes: DemoNode[] = [];
    const controlToken = newToken();
    const saveDemoFile = (): Promise<void> => writeDemoFile(dataDir, { pid: process.pid, controlUrl: control.url, controlToken, apiUrl, brokerUrl, dashboardUrl, nodes, ...(etcd && { etcd: etcd.members }) });
    const shutdownGraceSeconds = o.keepPods ? 0 : DEMO_SHUTDOWN_GRACE_SECONDS;
    const demoEdges = new DemoEdges({
      clock: o.clock,
      logger: o.logger,
      restartCommand: (node) => kedgeCommandFor(o.dataDir, `demo restart ${node}`),
      stopGraceMs: (shutdownGraceSeconds * 1000) / o.timeScale + EDGE_STOP_MARGIN_MS,
      env: { KEDGE_TOKEN: token },
      onLine: o.onLine,
      onRestarted: async (node, localApiUrl) => {
        nodes.find((n) => n.name === node)!.localApiUrl = localApiUrl;
        await saveDemoFile();
      },
    });
    const edges = demoEdges.processes;
    stops.push(() => demoEdges.stopAll());
    let localApiPort = o.localApiBasePort;
    let index = 0;
    for (const [node, proxyUrl] of proxyUrls) {
      const nodeIp = demoNodeIp(++index);
      const args = ['edge', '--node', node, '--broker', proxyUrl, '--data-dir', edgeDataDir(dataDir, node), '--node-ip', nodeIp, '--keepalive', String(o.keepaliveSeconds ?? DEMO_KEEPALIVE_SECONDS), '--shutdown-grace-period', String(shutdownGraceSeconds)];
      // A pod's way to the cloud side's bulk sink, through its node's link.
      args.push('--pod-env', `${LINK_SINK_ENV}=${links.get(node)!.host}:${links.get(node)!.sinkPort}`);
      demoEdges.start(node, [...args, '--local-api-port', String(localApiPort === 0 ? 0 : ++localApiPort), ...roleFlags]);
    }
    for (const [name, edge] of edges) nodes.push({ name, localApiUrl: readyField(await edge.ready, 'local-api'), proxyUrl: proxyUrls.get(name)! });

    const control = await startControlApi({ links, edges: demoEdges, ...(etcd && { etcd: etcd.control }), logger: o.logger.child('control'), token: controlToken });
    stops.push(() => control.close());
    const dashboardUrl = await mintDashboardUrl(apiUrl, (await readCredentials(dataDir))!.admin);
    await saveDemoFile();
    stops.push(() => removeDemoFile(dataDir));
    return {
      kubeconfigPath: join(dataDir, 'kubeconfig'),
      apiUrl,
      brokerUrl,
      controlUrl: control.url,
      dashboardUrl,
      demoFilePath: demoFilePath(dataDir),
      cloud,
      edges,
      links,
      nodes,
      ...(etcd && { etcd }),
      restartEdge: (node, how = {}) => demoEdges.restartProcess(node, how),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
