import { pathToFileURL } from 'node:url';
import type { ApiClient } from '../cloud/client/client.js';
import { realClock } from '../shared/clock.js';
import type { Pod } from '../shared/types.js';
import { Cluster } from '../sim/local-cluster.js';
import { perItemKiB, type MemorySample } from './edge-memory.js';
import { EdgeWorker } from './edge-worker-client.js';
import { benchConfigMap, benchSecret, DEFAULT_CONFIG_BYTES, podMounting } from './mounted-config.js';
import { waitUntil } from './scale-cluster.js';
import { createAll } from './scheduler.js';
import { median } from './stats.js';

/*
 * What a cached ConfigMap and a cached Secret cost one edge (in its own process, as in edge.ts).
 * For each kind, on a fresh edge: `pods` sim pods each mount `objects / pods` objects of that
 * kind, optional, so that they run before any exists; once they run, memory is sampled; then
 * half the objects are created (each `bytes` of data), synced to the edge and mounted, and memory
 * sampled; then the other half. Per object: the rise over `objects`; marginal: over the second
 * half. It holds the cached object and the in-memory record of its one mount (whose file
 * contents are Buffers: in RSS, not in the heap).
 */

/** What one kind's objects cost; medians over the runs. */
export interface PerObjectMemory {
  /** (all − before any) / objects. */
  heapKiB: number;
  rssKiB: number;
  /** (all − half) / the second half: without what the edge allocates once, for the first ones. */
  marginalHeapKiB: number;
  marginalRssKiB: number;
  /** Each run's heapKiB, to show the spread. */
  heapKiBRuns: number[];
}

export interface EdgeConfigMemoryReport {
  runs: number;
  pods: number;
  objects: number;
  bytes: number;
  configMap: PerObjectMemory;
  secret: PerObjectMemory;
}

type Kind = 'ConfigMap' | 'Secret';
type RunFigures = Omit<PerObjectMemory, 'heapKiBRuns'>;

interface WorkerState {
  running: number;
  configMaps: number;
  secrets: number;
  outbox: number;
}

const NODE = 'edge-config';
const ns = (resource: string) => ({ resource, namespace: 'default' });
const isRunning = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.ready);
const range = (from: number, count: number, prefix: string): string[] => Array.from({ length: count }, (_, i) => `${prefix}-${from + i}`);

/** Waits until the worker's state passes `check` with every status acknowledged, lets edged mount what came, and samples memory. */
async function settleAndSample(worker: EdgeWorker, what: string, check: (s: WorkerState) => boolean): Promise<MemorySample> {
  const settled = async (): Promise<boolean> => {
    const s = await worker.ask<WorkerState>('state');
    return check(s) && s.outbox === 0;
  };
  await waitUntil(settled, what, 60_000, 100);
  await worker.ask<number[]>('syncs 3'); // edged sets up configMap and secret volumes again on every sync
  await waitUntil(settled, what, 30_000, 100);
  return worker.ask<MemorySample>('memory');
}

async function createPods(api: ApiClient, kind: Kind, pods: number, perPod: number): Promise<void> {
  const refs = (i: number) => (kind === 'ConfigMap' ? { configMaps: range(i * perPod, perPod, 'cm') } : { secrets: range(i * perPod, perPod, 'secret') });
  await createAll(pods, 16, (i) => api.create(ns('pods'), podMounting(`config-pod-${i}`, NODE, { ...refs(i), optional: true })));
  await waitUntil(async () => (await api.list<Pod>(ns('pods'))).items.filter(isRunning).length === pods, `${pods} pods Running`, 60_000, 100);
}

const createObjects = (api: ApiClient, kind: Kind, from: number, to: number, bytes: number): Promise<void> =>
  createAll(to - from, 32, (i) =>
    kind === 'ConfigMap' ? api.create(ns('configmaps'), benchConfigMap(`cm-${from + i}`, 'v1', bytes)) : api.create(ns('secrets'), benchSecret(`secret-${from + i}`, 'v1', bytes)),
  );

const held = (kind: Kind, s: WorkerState): number => (kind === 'ConfigMap' ? s.configMaps : s.secrets);

type ConfigMemoryOptions = { pods: number; objects: number; log: (line: string) => void };

/** `runs` measurements of each kind, each on a fresh edge whose pods mount only that kind; medians. */
export async function runEdgeConfigMemory(o: ConfigMemoryOptions & { runs: number }, bytes = DEFAULT_CONFIG_BYTES): Promise<EdgeConfigMemoryReport> {
  const perPod = Math.ceil(o.objects / o.pods);
  const objects = perPod * o.pods;
  const measureKind = async (kind: Kind): Promise<PerObjectMemory> => {
    const runs: RunFigures[] = [];
    for (let run = 0; run < o.runs; run++) runs.push(await measureOnce({ ...o, objects }, kind, perPod, bytes));
    const of = (k: keyof RunFigures): number => median(runs.map((r) => r[k]));
    return { heapKiB: of('heapKiB'), rssKiB: of('rssKiB'), marginalHeapKiB: of('marginalHeapKiB'), marginalRssKiB: of('marginalRssKiB'), heapKiBRuns: runs.map((r) => r.heapKiB) };
  };
  const configMap = await measureKind('ConfigMap');
  const secret = await measureKind('Secret');
  return { runs: o.runs, pods: o.pods, objects, bytes, configMap, secret };
}

async function measureOnce(o: ConfigMemoryOptions, kind: Kind, perPod: number, bytes: number): Promise<RunFigures> {
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 0 });
  const worker = new EdgeWorker({ brokerUrl: cluster.cloud.brokerUrl, token: cluster.cloud.credentials.edge, nodeName: NODE, maxPods: o.pods });
  try {
    await worker.ask<'ready'>();
    await createPods(cluster.api, kind, o.pods, perPod);
    const base = await settleAndSample(worker, `${o.pods} pods running`, (s) => s.running === o.pods);
    const half = Math.floor(o.objects / 2);
    await createObjects(cluster.api, kind, 0, half, bytes);
    const halfway = await settleAndSample(worker, `${half} ${kind}s cached`, (s) => held(kind, s) === half);
    await createObjects(cluster.api, kind, half, o.objects, bytes);
    const loaded = await settleAndSample(worker, `${o.objects} ${kind}s cached`, (s) => held(kind, s) === o.objects);
    const all = perItemKiB(base, loaded, o.objects);
    const marginal = perItemKiB(halfway, loaded, o.objects - half);
    o.log(`${o.objects} ${kind}s of ${bytes} B mounted by ${o.pods} pods: ${all.heapKiB} KiB heap, ${all.rssKiB} KiB RSS each; marginal ${marginal.heapKiB} KiB heap, ${marginal.rssKiB} KiB RSS`);
    return { heapKiB: all.heapKiB, rssKiB: all.rssKiB, marginalHeapKiB: marginal.heapKiB, marginalRssKiB: marginal.rssKiB };
  } finally {
    await worker.stop();
    await cluster.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string): void => void process.stderr.write(`[edge-config] ${line}\n`);
  console.log(JSON.stringify(await runEdgeConfigMemory({ pods: Number(process.argv[2] ?? 100), objects: Number(process.argv[3] ?? 1000), runs: Number(process.argv[4] ?? 3), log }), null, 2));
}
