import { pathToFileURL } from 'node:url';
import type { Lease } from '../shared/config-types.js';
import { realClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { defaultTiming } from '../shared/timing.js';
import type { Node, Pod } from '../shared/types.js';
import type { ConnectionReport } from '../shared/wire/dashboard.js';
import { startCloudCluster, type CloudCluster } from '../sim/clouds/cloud-cluster.js';
import { pollUntil } from '../sim/clouds/poll.js';
import { CONTROL_PLANE_LEASES } from '../sim/clouds/leaders.js';
import { percentile, round } from './stats.js';

/*
 * Failover: three `kedge cloud` processes on one etcd, edges given every cloud's broker. Each run
 * kills (-9) the cloud that leads all three Leases, creates a pod at once through a surviving cloud, and times from
 * the kill: other clouds leading every Lease (each Lease has its own election), the pod bound, every edge connected again (heard
 * from a broker after the kill) and every edge Ready (a heartbeat written after the kill). Then
 * the killed cloud starts again, as a standby, for the next run.
 */

export interface FailoverBenchOptions {
  runs: number;
  clouds?: number;
  edges?: number;
  etcdMembers?: number;
  /** Divides every interval (the lease duration too); 1 measures kube's defaults. */
  timeScale?: number;
  log: (line: string) => void;
}

interface RunTimes {
  /** Until every Lease is held by another cloud. */
  leaderMs: number;
  podBoundMs: number;
  edgesReconnectedMs: number;
  edgesReadyMs: number;
}

const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const probePod = (name: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'failover-bench' } }, spec: { containers: [{ name: 'main', image: 'kedge.io/bench:1' }] } });

async function connection(localApiUrl: string): Promise<ConnectionReport> {
  const res = await fetch(`${localApiUrl}/connection`, { signal: AbortSignal.timeout(2_000) });
  return (await res.json()) as ConnectionReport;
}

/** The edge talks to a live broker: connected, and heard from after `sinceMs` (epoch ms; the dead broker says nothing after its kill). */
async function reconnectedSince(localApiUrl: string, sinceMs: number): Promise<boolean> {
  const c = await connection(localApiUrl);
  return c.connected && c.lastHeardFromBroker !== null && Date.parse(c.lastHeardFromBroker) > sinceMs;
}

/** The node is Ready with a heartbeat the hub wrote after `sinceMs` (epoch ms). */
function readySince(node: Node, sinceMs: number): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True' && Date.parse(ready.lastHeartbeatTime ?? '') > sinceMs;
}

/** Resolves with the ms from `startedAt` (performance.now()) at which `check` first held. */
async function msUntil(startedAt: number, check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  await pollUntil(realClock, async () => check(), what, timeoutMs, 20);
  return performance.now() - startedAt;
}

async function oneRun(c: CloudCluster, run: number, timeoutMs: number): Promise<RunTimes> {
  // The cloud that leads everything: the one leading the hub gathers the Leases split by earlier runs.
  const leader = (await c.leaders())['kedge-hub'] ?? (await c.waitForSoleLeader(timeoutMs));
  await c.gatherLeases(leader, timeoutMs);
  const killedAtEpoch = realClock.now();
  const killedAt = performance.now();
  await c.clouds.kill(c.indexOf(leader));
  const name = `failover-${run}`;
  await c.api.create(podRef(name), probePod(name));
  const edgeUrls = c.nodes.map((n) => c.edges.localApiUrl(n));
  const [leaderMs, podBoundMs, edgesReconnectedMs, edgesReadyMs] = await Promise.all([
    c.waitForTakeover(leader, timeoutMs).then(() => performance.now() - killedAt),
    msUntil(killedAt, async () => Boolean((await c.api.get<Pod>(podRef(name))).spec.nodeName), `${name} bound`, timeoutMs),
    msUntil(killedAt, async () => (await Promise.all(edgeUrls.map((u) => reconnectedSince(u, killedAtEpoch)))).every(Boolean), 'every edge connected again', timeoutMs),
    msUntil(killedAt, async () => (await c.api.list<Node>({ resource: 'nodes' })).items.filter((n) => c.nodes.includes(n.metadata.name!) && readySince(n, killedAtEpoch)).length === c.nodes.length, 'every edge Ready', timeoutMs),
  ]);
  await c.clouds.start(c.indexOf(leader));
  return { leaderMs, podBoundMs, edgesReconnectedMs, edgesReadyMs };
}

const summary = (values: number[]): { p50: number; max: number; samples: number[] } => ({ p50: round(percentile(values, 50)), max: round(Math.max(...values)), samples: values.map((v) => round(v)) });

export async function runFailoverBench(o: FailoverBenchOptions): Promise<Record<string, unknown>> {
  const timeScale = o.timeScale ?? 1;
  const shape = { clouds: o.clouds ?? 3, edges: o.edges ?? 2, etcdMembers: o.etcdMembers ?? 1 };
  const leaseMs = defaultTiming.leaseDurationMs / timeScale;
  // Lease duration, retry and jitter, a reconnect and a heartbeat, with room for a busy machine.
  const timeoutMs = 10 * leaseMs + 30_000;
  const cluster = await startCloudCluster({ ...shape, timeScale, clock: realClock, logger: silentLogger });
  const times: RunTimes[] = [];
  try {
    for (let run = 1; run <= o.runs; run++) {
      const t = await oneRun(cluster, run, timeoutMs);
      o.log(`failover run ${run}/${o.runs}: leader ${round(t.leaderMs)} ms, pod bound ${round(t.podBoundMs)} ms, edges connected ${round(t.edgesReconnectedMs)} ms, Ready ${round(t.edgesReadyMs)} ms`);
      times.push(t);
    }
    const holders = await cluster.api.list<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-system' });
    // The elections' Leases only: each cloud's apiserver identity Lease changes no hands.
    const transitions = holders.items.filter((l) => (CONTROL_PLANE_LEASES as readonly string[]).includes(l.metadata.name ?? '')).map((l) => l.spec?.leaseTransitions ?? 0);
    return {
      ...shape,
      runs: o.runs,
      timeScale,
      leaseDurationMs: leaseMs,
      leaseTransitions: Math.min(...transitions),
      leaderMs: summary(times.map((t) => t.leaderMs)),
      podBoundMs: summary(times.map((t) => t.podBoundMs)),
      edgesReconnectedMs: summary(times.map((t) => t.edgesReconnectedMs)),
      edgesReadyMs: summary(times.map((t) => t.edgesReadyMs)),
    };
  } finally {
    await cluster.close();
  }
}

// node dist/bench/failover.js [runs] [time scale]
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [runs = '10', timeScale = '1'] = process.argv.slice(2);
  const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
  console.log(JSON.stringify(await runFailoverBench({ runs: Number(runs), timeScale: Number(timeScale), log }), null, 2));
}
