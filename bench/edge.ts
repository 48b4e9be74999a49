import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ApiClient } from '../cloud/client/client.js';
import { realClock, wallDelay } from '../shared/clock.js';
import type { Pod } from '../shared/types.js';
import { Cluster } from '../sim/local-cluster.js';
import { perItemKiB, type MemorySample } from './edge-memory.js';
import { EdgeWorker } from './edge-worker-client.js';
import { benchPod, readyNodes, waitUntil } from './scale-cluster.js';
import { createAll } from './scheduler.js';
import { median, percentile, round } from './stats.js';

/*
 * One edge holding `pods` sim pods. The cloud runs in this process (a Cluster with no edges of
 * its own); the edge runs alone in a child process (edge-worker.ts), so that its memory
 * figures hold nothing of the cloud's. The pods come in two halves; after each, with every pod
 * Running and every status acknowledged, the edge's heap and RSS are sampled after full
 * collections. Memory per pod: full minus idle, over `pods`; marginal: full minus half-way,
 * over the second half (without what the edge allocates once, when its first pods come).
 * Sync time: `syncs` edged syncs back to back in steady state (all held, all running, nothing
 * changed), after a few not counted. Then the edge reboots and the first sync, which starts
 * all the pods from its cache, is timed.
 */

export interface EdgeBenchOptions {
  pods: number;
  syncs: number;
  log: (line: string) => void;
}

export interface EdgeBenchReport {
  pods: number;
  idle: MemorySample;
  loaded: MemorySample;
  halfway: MemorySample;
  /** (loaded - idle) / pods. */
  heapPerPodKiB: number;
  rssPerPodKiB: number;
  /** (loaded - halfway) / the second half's pods. */
  marginalHeapPerPodKiB: number;
  marginalRssPerPodKiB: number;
  syncMs: { samples: number; p50: number; p99: number; max: number };
  /** For each half: its first create call → every pod Running in the cloud (API, MQTT, the edge's syncs and statuses). */
  fillMs: { firstHalfPods: number; firstHalf: number; secondHalf: number };
  /** Edge restart as after a reboot, all pods in its cache → first sync done (every sandbox and container created). */
  rebootFirstSyncMs: number;
  /** The same → every pod Running in the edge's own status. */
  rebootAllRunningMs: number;
}

/** The edge runs with --max-pods set to this count, so its capacity and pod subnet fit them. */
export const DEFAULT_EDGE_PODS = 1000;
const NODE = 'edge-1';
const WARM_UP_SYNCS = 5;
const ns = { resource: 'pods', namespace: 'default' };

const isRunning = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.ready);

/** Creates pods `from`..`to`-1 bound to the edge; the time until all `to` are Running in the cloud, then the edge's settled memory. */
async function fillAndSample(api: ApiClient, worker: EdgeWorker, from: number, to: number): Promise<{ fillMs: number; memory: MemorySample }> {
  const began = performance.now();
  await createAll(to - from, 32, (i) => api.create(ns, benchPod(`edge-pod-${from + i}`, NODE)));
  let running = 0;
  const allRunning = async (): Promise<boolean> => (running = (await api.list<Pod>(ns)).items.filter(isRunning).length) === to;
  await waitUntil(allRunning, `${to} pods Running`, 60_000, 50).catch((err: Error) => {
    throw new Error(`${err.message}: ${running} are (the edge's warnings, if any, are above)`);
  });
  const fillMs = performance.now() - began;
  const settled = async (): Promise<boolean> => {
    const s = await worker.ask<{ running: number; outbox: number }>('state');
    return s.running === to && s.outbox === 0;
  };
  await waitUntil(settled, 'every status acknowledged', 30_000, 100);
  return { fillMs, memory: await worker.ask<MemorySample>('memory') };
}

const mib = (m: MemorySample): string => `heap ${m.heapUsedMiB} MiB, RSS ${m.rssMiB} MiB`;

async function measure(cluster: Cluster, worker: EdgeWorker, o: EdgeBenchOptions): Promise<EdgeBenchReport> {
  await waitUntil(async () => (await readyNodes(cluster.api)) === 1, `${NODE} Ready`, 30_000, 100);
  await wallDelay(1_000); // the first heartbeat and statuses settle
  const idle = await worker.ask<MemorySample>('memory');
  const half = Math.floor(o.pods / 2);
  const first = await fillAndSample(cluster.api, worker, 0, half);
  const second = await fillAndSample(cluster.api, worker, half, o.pods);
  const [halfway, loaded] = [first.memory, second.memory];
  o.log(`edge memory: idle ${mib(idle)}; ${half} pods ${mib(halfway)}; ${o.pods} pods ${mib(loaded)}`);
  o.log(`created → all Running in the cloud: ${half} pods in ${round(first.fillMs)} ms, ${o.pods - half} more in ${round(second.fillMs)} ms`);
  const perPod = perItemKiB(idle, loaded, o.pods);
  const marginal = perItemKiB(halfway, loaded, o.pods - half);
  o.log(`per pod: ${perPod.heapKiB} KiB heap, ${perPod.rssKiB} KiB RSS; marginal ${marginal.heapKiB} KiB heap, ${marginal.rssKiB} KiB RSS`);
  const samples = (await worker.ask<number[]>(`syncs ${WARM_UP_SYNCS + o.syncs}`)).slice(WARM_UP_SYNCS);
  const syncMs = { samples: samples.length, p50: round(median(samples), 2), p99: round(percentile(samples, 99), 2), max: round(Math.max(...samples), 2) };
  o.log(`steady sync with ${o.pods} pods: p50 ${syncMs.p50} ms, p99 ${syncMs.p99} ms`);
  const reboot = await worker.ask<{ firstSyncMs: number; allRunningMs: number }>('reboot');
  o.log(`reboot: first sync done in ${round(reboot.firstSyncMs)} ms, all Running in ${round(reboot.allRunningMs)} ms`);
  return {
    pods: o.pods,
    idle,
    loaded,
    halfway,
    heapPerPodKiB: perPod.heapKiB,
    rssPerPodKiB: perPod.rssKiB,
    marginalHeapPerPodKiB: marginal.heapKiB,
    marginalRssPerPodKiB: marginal.rssKiB,
    syncMs,
    fillMs: { firstHalfPods: half, firstHalf: round(first.fillMs), secondHalf: round(second.fillMs) },
    rebootFirstSyncMs: round(reboot.firstSyncMs),
    rebootAllRunningMs: round(reboot.allRunningMs),
  };
}

export async function runEdgeBench(o: EdgeBenchOptions, resultsDir = 'bench/results'): Promise<EdgeBenchReport> {
  // The node's podCIDR must hold every pod (a /24 holds 253).
  const nodeCidrMaskSize = 32 - Math.max(8, Math.ceil(Math.log2(o.pods + 3)));
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 0, nodeCidrMaskSize });
  const worker = new EdgeWorker({ brokerUrl: cluster.cloud.brokerUrl, token: cluster.cloud.credentials.edge, nodeName: NODE, maxPods: o.pods });
  try {
    await worker.ask<'ready'>();
    const report = await measure(cluster, worker, o);
    await mkdir(resultsDir, { recursive: true });
    await writeFile(join(resultsDir, 'edge.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } finally {
    await worker.stop();
    await cluster.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string): void => void process.stderr.write(`[edge] ${line}\n`);
  console.log(JSON.stringify(await runEdgeBench({ pods: Number(process.argv[2] ?? DEFAULT_EDGE_PODS), syncs: 50, log }), null, 2));
}
