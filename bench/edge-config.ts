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
 * `pods` sim pods each mount `objects / pods` ConfigMaps and as many Secrets, all optional, so
 * that they run before any exists; once they run, memory is sampled; then the ConfigMaps are
 * created (each `bytes` of data), synced to the edge and mounted, and memory sampled; then the
 * Secrets alike. Per object: the rise over `objects`. It holds the cached object and the
 * in-memory record of its one mount (whose file contents are Buffers: in RSS, not in the heap).
 */

export interface EdgeConfigMemoryReport {
  pods: number;
  objects: number;
  bytes: number;
  base: MemorySample;
  withConfigMaps: MemorySample;
  withSecrets: MemorySample;
  heapPerConfigMapKiB: number;
  rssPerConfigMapKiB: number;
  heapPerSecretKiB: number;
  rssPerSecretKiB: number;
}

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

async function createPods(api: ApiClient, pods: number, perPod: number): Promise<void> {
  await createAll(pods, 16, (i) =>
    api.create(ns('pods'), podMounting(`config-pod-${i}`, NODE, { configMaps: range(i * perPod, perPod, 'cm'), secrets: range(i * perPod, perPod, 'secret'), optional: true })),
  );
  await waitUntil(async () => (await api.list<Pod>(ns('pods'))).items.filter(isRunning).length === pods, `${pods} pods Running`, 60_000, 100);
}

type ConfigMemoryOptions = { pods: number; objects: number; log: (line: string) => void };

/** `runs` measurements, each with a fresh edge; the per-object figures are their medians, the samples the last run's. */
export async function runEdgeConfigMemory(o: ConfigMemoryOptions & { runs: number }, bytes = DEFAULT_CONFIG_BYTES): Promise<EdgeConfigMemoryReport & { runs: number }> {
  const reports: EdgeConfigMemoryReport[] = [];
  for (let run = 0; run < o.runs; run++) reports.push(await measureOnce(o, bytes));
  const of = (k: PerObjectFigure): number => median(reports.map((r) => r[k]));
  return { ...reports.at(-1)!, runs: o.runs, heapPerConfigMapKiB: of('heapPerConfigMapKiB'), rssPerConfigMapKiB: of('rssPerConfigMapKiB'), heapPerSecretKiB: of('heapPerSecretKiB'), rssPerSecretKiB: of('rssPerSecretKiB') };
}

type PerObjectFigure = 'heapPerConfigMapKiB' | 'rssPerConfigMapKiB' | 'heapPerSecretKiB' | 'rssPerSecretKiB';

async function measureOnce(o: ConfigMemoryOptions, bytes: number): Promise<EdgeConfigMemoryReport> {
  const perPod = Math.ceil(o.objects / o.pods);
  const objects = perPod * o.pods;
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 0 });
  const worker = new EdgeWorker({ brokerUrl: cluster.cloud.brokerUrl, token: cluster.cloud.credentials.edge, nodeName: NODE, maxPods: o.pods });
  try {
    await worker.ask<'ready'>();
    await createPods(cluster.api, o.pods, perPod);
    const base = await settleAndSample(worker, `${o.pods} pods running`, (s) => s.running === o.pods);
    await createAll(objects, 32, (i) => cluster.api.create(ns('configmaps'), benchConfigMap(`cm-${i}`, 'v1', bytes)));
    const withConfigMaps = await settleAndSample(worker, `${objects} ConfigMaps cached`, (s) => s.configMaps === objects);
    await createAll(objects, 32, (i) => cluster.api.create(ns('secrets'), benchSecret(`secret-${i}`, 'v1', bytes)));
    const withSecrets = await settleAndSample(worker, `${objects} Secrets cached`, (s) => s.secrets === objects);
    const cm = perItemKiB(base, withConfigMaps, objects);
    const secret = perItemKiB(withConfigMaps, withSecrets, objects);
    o.log(`${objects} ConfigMaps and ${objects} Secrets of ${bytes} B mounted by ${o.pods} pods: per ConfigMap ${cm.heapKiB} KiB heap, ${cm.rssKiB} KiB RSS; per Secret ${secret.heapKiB} KiB heap, ${secret.rssKiB} KiB RSS`);
    return { pods: o.pods, objects, bytes, base, withConfigMaps, withSecrets, heapPerConfigMapKiB: cm.heapKiB, rssPerConfigMapKiB: cm.rssKiB, heapPerSecretKiB: secret.heapKiB, rssPerSecretKiB: secret.rssKiB };
  } finally {
    await worker.stop();
    await cluster.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string): void => void process.stderr.write(`[edge-config] ${line}\n`);
  console.log(JSON.stringify(await runEdgeConfigMemory({ pods: Number(process.argv[2] ?? 100), objects: Number(process.argv[3] ?? 1000), runs: Number(process.argv[4] ?? 3), log }), null, 2));
}
