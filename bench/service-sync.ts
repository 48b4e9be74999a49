import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EdgeHandle } from '../edge/edge-options.js';
import { cachedEndpoints, cachedServices } from '../edge/metamanager/network-objects.js';
import { realClock, wallDelay } from '../shared/clock.js';
import type { Endpoints, Service } from '../shared/service-types.js';
import { startFleet, type Fleet } from '../sim/fleet.js';
import { Cluster } from '../sim/local-cluster.js';
import { lastOf } from './config-fanout.js';
import { benchPod, readyNodes, waitUntil } from './scale-cluster.js';
import { createAll } from './scheduler.js';
import { median, round } from './stats.js';

/*
 * The cost of syncing Services [SYNC-19]: `nodes` hollow edges (sim/fleet.ts, in this process,
 * over the in-memory broker, as bench/config-fanout.ts), of which every other one runs a pod of
 * namespace `svc-bench` (the routing nodes: a ClusterIP Service reaches only those). Then
 * `services` ClusterIP Services without a selector, each with an Endpoints of `endpoints`
 * addresses, are created: timed until every routing edge holds them all, with the hub's down
 * payload bytes over that span, per routing node. Then one Endpoints is changed `changes` times,
 * each timed until every routing edge holds the new version. Medians over the changes.
 */

export interface ServiceSyncReport {
  nodes: number;
  routingNodes: number;
  services: number;
  endpointsPerService: number;
  /** Creates → every routing edge holds every Service and Endpoints (ms). */
  allSyncedMs: number;
  /** Hub down messages (sends and re-sends) and payload bytes over that span, per routing node. */
  messagesPerRoutingNode: number;
  bytesPerRoutingNode: number;
  /** Services and Endpoints a node without a pod of the namespace got: 0 by the rule. */
  heldByOtherNodes: number;
  changes: number;
  /** One Endpoints changed → every routing edge holds it (ms), median. */
  endpointsChangeMs: number;
  /** Hub down bytes for that change, median. */
  endpointsChangeBytes: number;
}

const NAMESPACE = 'svc-bench';
const servicesRef = { resource: 'services', namespace: NAMESPACE };
const endpointsRef = { resource: 'endpoints', namespace: NAMESPACE };
const service = (name: string): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NAMESPACE }, spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
/** `count` ready addresses, as the Endpoints controller would write them; `round` varies the last octets. */
const endpoints = (name: string, count: number, round = 0): Endpoints => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name, namespace: NAMESPACE },
  subsets: [{ addresses: Array.from({ length: count }, (_, i) => ({ ip: `127.64.${(i + round) % 250}.${10 + i}`, nodeName: `hollow-${i + 1}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
});
const inNamespace = (o: { metadata: { namespace?: string } }): boolean => o.metadata.namespace === NAMESPACE;
const heldServices = (e: EdgeHandle): number => cachedServices(e.cache).filter(inNamespace).length + cachedEndpoints(e.cache).filter(inNamespace).length;
const endpointsVersion = (e: EdgeHandle, name: string): string | undefined => cachedEndpoints(e.cache).find((ep) => inNamespace(ep) && ep.metadata.name === name)?.metadata.resourceVersion;

async function withFleet<T>(nodes: number, run: (cluster: Cluster, fleet: Fleet) => Promise<T>): Promise<T> {
  const cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: 0 });
  let fleet: Fleet | undefined;
  try {
    const dataDir = await mkdtemp(join(tmpdir(), 'kedge-bench-services-'));
    fleet = await startFleet({ nodes, brokerUrl: cluster.cloud.brokerUrl, token: cluster.cloud.credentials.edge, dataDir, transport: (id) => cluster.transport(id), removeDataOnStop: true });
    await waitUntil(async () => (await readyNodes(cluster.api)) === nodes, `${nodes} nodes Ready`, 180_000);
    return await run(cluster, fleet);
  } finally {
    await fleet?.stop();
    await cluster.stop();
  }
}

export async function runServiceSync(o: { nodes: number; services: number; endpoints: number; changes: number; log: (line: string) => void }): Promise<ServiceSyncReport> {
  return withFleet(o.nodes, async (cluster, fleet) => {
    const routing = fleet.names.filter((_, i) => i % 2 === 0);
    const others = fleet.names.filter((_, i) => i % 2 === 1);
    const edge = (node: string): EdgeHandle => fleet.edges.get(node)!;
    await cluster.api.create({ resource: 'namespaces' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    await createAll(routing.length, 32, (i) => cluster.api.create({ resource: 'pods', namespace: NAMESPACE }, { ...benchPod(`routed-${i}`, routing[i]), metadata: { name: `routed-${i}`, namespace: NAMESPACE } }));
    await lastOf(routing, (n) => edge(n).cache.find('Pod', NAMESPACE, `routed-${routing.indexOf(n)}`) !== undefined, performance.now(), 120_000);
    o.log(`${o.nodes} hollow edges Ready, ${routing.length} of them run a pod of ${NAMESPACE}`);
    await wallDelay(2_000); // pod statuses and acks settle

    const before = cluster.cloud.hub.stats();
    const began = performance.now();
    const names = Array.from({ length: o.services }, (_, i) => `svc-${i}`);
    await createAll(names.length, 32, async (i) => {
      await cluster.api.create(servicesRef, service(names[i]!));
      await cluster.api.create(endpointsRef, endpoints(names[i]!, o.endpoints));
    });
    const allSyncedMs = await lastOf(routing, (n) => heldServices(edge(n)) === 2 * o.services, began, 120_000);
    const after = cluster.cloud.hub.stats();
    const perNode = (n: number): number => round(n / routing.length);
    o.log(`${o.services} Services x ${o.endpoints} endpoints on ${routing.length} routing edges in ${round(allSyncedMs)} ms, ${perNode(after.sentBytes - before.sentBytes)} bytes per routing edge`);

    const samples: { ms: number; bytes: number }[] = [];
    for (let c = 1; c <= o.changes; c++) {
      await wallDelay(1_000); // acks of the last round settle
      const current = await cluster.api.get<Endpoints>({ ...endpointsRef, name: names[0]! });
      const s0 = cluster.cloud.hub.stats();
      const t0 = performance.now();
      const changed = await cluster.api.replace<Endpoints>({ ...endpointsRef, name: names[0]! }, { ...current, subsets: endpoints(names[0]!, o.endpoints, c).subsets });
      const ms = await lastOf(routing, (n) => endpointsVersion(edge(n), names[0]!) === changed.metadata.resourceVersion, t0);
      samples.push({ ms, bytes: cluster.cloud.hub.stats().sentBytes - s0.sentBytes });
      o.log(`Endpoints change ${c}: every routing edge in ${round(ms)} ms`);
    }
    return {
      nodes: o.nodes,
      routingNodes: routing.length,
      services: o.services,
      endpointsPerService: o.endpoints,
      allSyncedMs: round(allSyncedMs),
      messagesPerRoutingNode: perNode(after.sent + after.resent - before.sent - before.resent),
      bytesPerRoutingNode: perNode(after.sentBytes - before.sentBytes),
      heldByOtherNodes: others.reduce((sum, n) => sum + heldServices(edge(n)), 0),
      changes: o.changes,
      endpointsChangeMs: round(median(samples.map((s) => s.ms))),
      endpointsChangeBytes: round(median(samples.map((s) => s.bytes))),
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string): void => void process.stderr.write(`[services] ${line}\n`);
  const [nodes = 1000, services = 100, endpoints = 10, changes = 5] = process.argv.slice(2).map(Number);
  console.log(JSON.stringify(await runServiceSync({ nodes, services, endpoints, changes, log }), null, 2));
}
