import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { realClock, wallDelay } from '../shared/clock.js';
import { startEtcdCluster, type EtcdCluster } from '../sim/etcd/etcd-cluster.js';
import { apiRound, type ApiRoundOptions, type ApiRoundResult } from './etcd-api.js';
import { interleavedRounds } from './interleave.js';
import { DURABLE_STORE_ARGS, etcdStoreArgs, startBenchCloud, type BenchCloud } from './scale-cluster.js';
import type { RoundResult } from './store-load.js';
import { StoreWorker, type WorkerStore } from './store-worker-client.js';
import { compareRounds, median, type RoundsComparison } from './stats.js';

/*
 * The embedded durable store against etcd of one member and of three (real etcd processes on
 * this machine), in one run: store writes per second (bench/store-worker.ts, each store in its
 * own process), then mutating and list API latency through a `kedge cloud` process on each.
 * Rounds alternate between the three, in an order rotated each round, so that background load
 * hits them alike; medians over rounds, and etcd's figures divided by the embedded store's.
 */

export interface EtcdBenchOptions {
  /** Objects in each store, and concurrent writers (as the store suite). */
  objects?: number;
  writers?: number;
  storeRounds?: number;
  roundSeconds?: number;
  apiRounds?: number;
  api?: ApiRoundOptions;
  /** Where etcd.json goes; default bench/results. */
  resultsDir?: string;
  log?: (line: string) => void;
}

const BACKENDS = [
  { name: 'embedded', members: 0 },
  { name: 'etcd1', members: 1 },
  { name: 'etcd3', members: 3 },
] as const;
type BackendName = (typeof BACKENDS)[number]['name'];

export interface BackendFigures {
  /** Medians over rounds. */
  writesPerSecond: number;
  writeP99Ms: number;
  apiMutatingP99Ms: number;
  apiListP99Ms: number;
  roundsWritesPerSecond: number[];
  roundsApiMutatingP99Ms: number[];
  roundsApiListP99Ms: number[];
}

export interface EtcdBenchReport {
  settings: Required<Omit<EtcdBenchOptions, 'resultsDir' | 'log'>>;
  stores: Record<BackendName, BackendFigures>;
  /** etcd's figure / the embedded store's. */
  vsEmbedded: Record<'etcd1' | 'etcd3', Record<'writesPerSecond' | 'apiMutatingP99Ms' | 'apiListP99Ms', RoundsComparison>>;
}

/** Keys of the store rounds, apart from the clouds' /registry. */
const STORE_PREFIX = '/kedge-bench-store';

async function storeRounds(clusters: (EtcdCluster | undefined)[], s: EtcdBenchReport['settings']): Promise<RoundResult[][]> {
  const spec = (etcd: EtcdCluster | undefined): WorkerStore => (etcd ? { kind: 'etcd', endpoints: etcd.endpoints, prefix: STORE_PREFIX } : { kind: 'durable' });
  const workers: StoreWorker[] = [];
  try {
    for (const etcd of clusters) workers.push(new StoreWorker(s.objects, s.writers, spec(etcd)));
    for (const worker of workers) await worker.nextLine(); // ready: prefilled and warmed up
    return await interleavedRounds(workers.length, s.storeRounds, (i) => workers[i]!.round(s.roundSeconds));
  } finally {
    for (const worker of workers) await worker.stop();
  }
}

async function apiRounds(clusters: (EtcdCluster | undefined)[], s: EtcdBenchReport['settings']): Promise<ApiRoundResult[][]> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-etcd-'));
  const clouds: BenchCloud[] = [];
  try {
    for (const [i, etcd] of clusters.entries()) clouds.push(await startBenchCloud(join(dir, String(i)), etcd ? etcdStoreArgs(etcd) : DURABLE_STORE_ARGS));
    await wallDelay(3_000); // start-up writes (bootstrap objects, leases) settle
    for (const cloud of clouds) await apiRound(cloud.api, 'warmup', { ...s.api, pods: Math.min(50, s.api.pods), lists: 2 });
    return await interleavedRounds(clouds.length, s.apiRounds, (i, r) => apiRound(clouds[i]!.api, `r${r}`, s.api));
  } finally {
    for (const cloud of clouds) await cloud.cloud.stop(30_000);
    await rm(dir, { recursive: true, force: true });
  }
}

function figures(store: RoundResult[], api: ApiRoundResult[]): BackendFigures {
  const [writes, mutating, list] = [store.map((r) => r.writesPerSecond), api.map((r) => r.mutatingP99Ms), api.map((r) => r.listP99Ms)];
  return {
    writesPerSecond: median(writes),
    writeP99Ms: median(store.map((r) => r.p99LatencyMs)),
    apiMutatingP99Ms: median(mutating),
    apiListP99Ms: median(list),
    roundsWritesPerSecond: writes,
    roundsApiMutatingP99Ms: mutating,
    roundsApiListP99Ms: list,
  };
}

const versus = (base: BackendFigures, etcd: BackendFigures): EtcdBenchReport['vsEmbedded']['etcd1'] => ({
  writesPerSecond: compareRounds(base.roundsWritesPerSecond, etcd.roundsWritesPerSecond),
  apiMutatingP99Ms: compareRounds(base.roundsApiMutatingP99Ms, etcd.roundsApiMutatingP99Ms),
  apiListP99Ms: compareRounds(base.roundsApiListP99Ms, etcd.roundsApiListP99Ms),
});

export async function runEtcdBench(options: EtcdBenchOptions = {}): Promise<EtcdBenchReport> {
  const log = options.log ?? (() => {});
  const settings = {
    objects: options.objects ?? 1_000,
    writers: options.writers ?? 64,
    storeRounds: options.storeRounds ?? 7,
    roundSeconds: options.roundSeconds ?? 2,
    apiRounds: options.apiRounds ?? 5,
    api: options.api ?? { pods: 300, callsPerSecond: 100, lists: 20 },
  };
  const clusters: (EtcdCluster | undefined)[] = [];
  try {
    for (const b of BACKENDS) clusters.push(b.members ? await startEtcdCluster({ size: b.members, clock: realClock }) : undefined);
    log(`etcd: store writes, ${settings.storeRounds} rounds of ${settings.roundSeconds} s on each store`);
    const store = await storeRounds(clusters, settings);
    log(`etcd: API, ${settings.apiRounds} rounds of ${settings.api.pods} pods created, updated and deleted at ${settings.api.callsPerSecond}/s on each store`);
    const api = await apiRounds(clusters, settings);
    const [embedded, etcd1, etcd3] = BACKENDS.map((_, i) => figures(store[i]!, api[i]!)) as [BackendFigures, BackendFigures, BackendFigures];
    const report: EtcdBenchReport = { settings, stores: { embedded, etcd1, etcd3 }, vsEmbedded: { etcd1: versus(embedded, etcd1), etcd3: versus(embedded, etcd3) } };
    const resultsDir = options.resultsDir ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
    await mkdir(resultsDir, { recursive: true });
    await writeFile(join(resultsDir, 'etcd.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } finally {
    for (const etcd of clusters) await etcd?.close();
  }
}

export function formatEtcdBench(r: EtcdBenchReport): string {
  const header = 'store | writes/s | write p99 ms | API mutating p99 ms | API list p99 ms';
  const rows = BACKENDS.map(({ name }) => [name, r.stores[name].writesPerSecond, r.stores[name].writeP99Ms, r.stores[name].apiMutatingP99Ms, r.stores[name].apiListP99Ms].join(' | '));
  const ratio = (c: RoundsComparison): string => `${c.ratio} (per round ${c.medianRoundRatio}, p ${c.p})`;
  const ratios = (['etcd1', 'etcd3'] as const).map((n) => {
    const v = r.vsEmbedded[n];
    return `${n}/embedded: writes/s ${ratio(v.writesPerSecond)}; API mutating p99 ${ratio(v.apiMutatingP99Ms)}; list p99 ${ratio(v.apiListP99Ms)}`;
  });
  return [header, ...rows, ...ratios].join('\n');
}

/** node dist/bench/etcd.js [rounds] [pods per API round]: a smaller run, e.g. `3 100`. */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [rounds, pods] = process.argv.slice(2).map(Number);
  const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
  const api = pods ? { pods, callsPerSecond: 100, lists: 20 } : undefined;
  process.stdout.write(formatEtcdBench(await runEtcdBench({ storeRounds: rounds, apiRounds: rounds, api, log })) + '\n');
}
