import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../cloud/client/client.js';
import { preciseWallTime } from '../shared/trace/pod-startup-trace.js';
import { realClock, wallDelay } from '../shared/clock.js';
import { defaultTiming } from '../shared/timing.js';
import { startEtcdCluster } from '../sim/etcd/etcd-cluster.js';
import type { Pod } from '../shared/types.js';
import { pacedCalls } from './paced-calls.js';
import { STAGES, startupStages, type StageFigures } from './startup-stages.js';
import { PodTracker } from './pod-tracker.js';
import { UsageSampler } from './proc-stats.js';
import { benchPod, etcdStoreArgs, readyNodes, startScaleCluster, waitUntil, type ScaleCluster } from './scale-cluster.js';
import { median, percentile, round } from './stats.js';

export interface ScaleOptions {
  nodes: number;
  pods: number;
  /** Share of the pods created as one burst, to measure scheduler throughput. */
  burstShare: number;
  /** Creation rate of the remaining pods (their startup latency is the SLO figure). */
  podsPerSecond: number;
  idleSeconds: number;
  /** Run the cloud on an etcd cluster of this many members (started here); unset: the embedded durable store. */
  etcdMembers?: number;
  log: (line: string) => void;
}

const ns = { resource: 'pods', namespace: 'default' };

/** Creates pods with at most `inFlight` requests open, optionally paced; returns each call's latency. */
function createPods(api: ApiClient, tracker: PodTracker, pods: Pod[], inFlight: number, perSecond?: number): Promise<number[]> {
  return pacedCalls(pods.length, inFlight, (i) => {
    tracker.created(pods[i]!.metadata.name!);
    return api.create(ns, pods[i]!);
  }, perSecond);
}

async function allRunning(tracker: PodTracker, names: string[], timeoutMs: number): Promise<void> {
  await waitUntil(async () => names.every((n) => tracker.times.get(n)?.runningAt !== undefined), `${names.length} pods Running`, timeoutMs, 250);
}

async function linkBytes(c: ScaleCluster): Promise<number> {
  const totals = (await c.control('/links/totals')) as { bytesUp: number; bytesDown: number };
  return totals.bytesUp + totals.bytesDown;
}

async function idleUplink(c: ScaleCluster, nodes: number, seconds: number): Promise<number> {
  const totals = async (): Promise<number> => ((await c.control('/links/totals')) as { bytesUp: number }).bytesUp;
  // Let the last statuses go, and the usage reports of the last pods started: an edge reports a change of
  // its usage at its next sample, up to one metrics resolution later (docs/protocol.md, [SYNC-22]).
  await wallDelay(defaultTiming.metricsResolutionMs + 5_000);
  const before = await totals();
  await wallDelay(seconds * 1000);
  return ((await totals()) - before) * 8 / nodes / seconds;
}

/** All links cut (and reset), one new pod per node meanwhile, all healed at once. */
async function storm(c: ScaleCluster, tracker: PodTracker, nodes: string[], log: (l: string) => void): Promise<Record<string, number>> {
  const before = new Map((await c.api.list<Pod>(ns)).items.map((p) => [p.metadata.name!, p.status?.containerStatuses?.[0]?.containerID]));
  await c.control('/links/cut-all', 'POST');
  await c.control('/links/reset-all', 'POST');
  await wallDelay(3_000);
  const fresh = nodes.map((n) => benchPod(`storm-${n}`, n));
  await createPods(c.api, tracker, fresh, 32);
  const bytesBefore = await linkBytes(c);
  const healedAt = preciseWallTime();
  await c.control('/links/heal-all', 'POST');
  await allRunning(tracker, fresh.map((p) => p.metadata.name!), 120_000);
  const convergeMs = Math.max(...fresh.map((p) => tracker.times.get(p.metadata.name!)!.runningAt!)) - healedAt;
  const bytes = (await linkBytes(c)) - bytesBefore;
  log(`storm: converged in ${round(convergeMs)} ms, ${bytes} bytes through the links`);
  const after = (await c.api.list<Pod>(ns)).items;
  const lost = after.filter((p) => p.status?.phase !== 'Running').length + [...before.keys()].filter((n) => !after.some((p) => p.metadata.name === n)).length;
  const duplicated = after.filter((p) => {
    const was = before.get(p.metadata.name!);
    return (p.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0 || (was !== undefined && was !== p.status?.containerStatuses?.[0]?.containerID);
  }).length;
  return { nodes: nodes.length, convergeMs: round(convergeMs), lost, duplicated, bytes };
}

/** Where the steady pods' startup went, leg by leg (bench/startup-stages.ts), from the cloud's trace and the bench's own times. */
async function steadyStages(c: ScaleCluster, tracker: PodTracker, pods: Pod[], log: (l: string) => void): Promise<StageFigures | undefined> {
  const marks = await c.podStartups();
  const paths = pods.map((p) => {
    const t = tracker.times.get(p.metadata.name!)!;
    return { ...marks[`default/${p.metadata.name!}`], sentAt: t.createdAt, seenAt: t.runningAt };
  });
  const figures = startupStages(paths);
  if (figures) log(`steady: slowest 1% (${figures.tail.pods} pods, ${figures.tail.totalMs} ms) spent ${Object.entries(figures.tail).filter(([k]) => k in STAGES).map(([k, v]) => `${k} ${v}`).join(', ')} ms`);
  return figures;
}

export async function runScaleBench(o: ScaleOptions): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-scale-'));
  const etcd = o.etcdMembers ? await startEtcdCluster({ size: o.etcdMembers, clock: realClock }) : undefined;
  const c = await startScaleCluster(dir, o.nodes, etcd && etcdStoreArgs(etcd)).catch(async (err: unknown) => {
    await etcd?.close();
    throw err;
  });
  const tracker = new PodTracker(c.api);
  try {
    await waitUntil(async () => (await readyNodes(c.api)) === o.nodes, `${o.nodes} nodes Ready`, 180_000, 1000);
    o.log(`${o.nodes} nodes Ready`);
    const cloudUsage = new UsageSampler(c.cloud.child.pid!);
    const fleetUsage = new UsageSampler(c.fleet.child.pid!);
    await Promise.all([cloudUsage.start(), fleetUsage.start()]);
    await tracker.start();
    const burst = Array.from({ length: Math.round(o.pods * o.burstShare) }, (_, i) => benchPod(`burst-${i}`));
    const burstStart = preciseWallTime();
    const burstLatencies = await createPods(c.api, tracker, burst, 64);
    await waitUntil(async () => tracker.count((t) => t.boundAt !== undefined) >= burst.length, 'burst bound', 120_000, 50);
    const lastBound = Math.max(...burst.map((p) => tracker.times.get(p.metadata.name!)!.boundAt!));
    const schedulerPodsPerSec = burst.length / ((lastBound - burstStart) / 1000);
    await allRunning(tracker, burst.map((p) => p.metadata.name!), 180_000);
    o.log(`burst: ${burst.length} pods bound at ${round(schedulerPodsPerSec)}/s`);

    const steady = Array.from({ length: o.pods - burst.length }, (_, i) => benchPod(`pod-${i}`));
    const steadyLatencies = await createPods(c.api, tracker, steady, 64, o.podsPerSecond);
    await allRunning(tracker, steady.map((p) => p.metadata.name!), 180_000);
    const startup = steady.map((p) => tracker.times.get(p.metadata.name!)!).map((t) => t.runningAt! - t.createdAt!);
    o.log(`steady: ${steady.length} pods, startup p99 ${round(percentile(startup, 99))} ms`);
    const stages = await steadyStages(c, tracker, steady, o.log);
    const idle = await idleUplink(c, o.nodes, o.idleSeconds);
    const nodeNames = Array.from({ length: o.nodes }, (_, i) => `hollow-${i + 1}`);
    const reconnectStorm = await storm(c, tracker, nodeNames, o.log);
    const usage = await cloudUsage.stop();
    const fleet = await fleetUsage.stop();
    return {
      ...(etcd ? { store: `etcd, ${etcd.endpoints.length} member${etcd.endpoints.length > 1 ? 's' : ''}` } : {}),
      nodes: o.nodes,
      pods: o.pods,
      podsPerSecond: o.podsPerSecond,
      podStartupMs: { p50: round(median(startup)), p90: round(percentile(startup, 90)), p99: round(percentile(startup, 99)) },
      podStartupSamples: startup,
      ...(stages && { stages }),
      // Under a steady churn of podsPerSecond creates (the SLO's setting); the burst, 64 at once, apart.
      apiMutatingP99Ms: round(percentile(steadyLatencies, 99)),
      apiMutatingBurstP99Ms: round(percentile(burstLatencies, 99)),
      schedulerPodsPerSec: round(schedulerPodsPerSec),
      reconnectStorm,
      idleUplinkBitsPerNodePerSec: round(idle),
      cloudRssMiB: round(usage.peakRssMiB),
      cloudCpuCores: round(usage.cpuCores, 2),
      fleetCpuCores: round(fleet.cpuCores, 2),
      memoryPerHollowEdgeMiB: round(fleet.peakRssMiB / o.nodes, 2),
    };
  } finally {
    tracker.stop();
    await c.stop();
    await etcd?.close();
    await rm(dir, { recursive: true, force: true });
  }
}
