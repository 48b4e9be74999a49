import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DurableStoreOptions } from '../cloud/store/durable-store.js';
import type { RoundResult } from './store-load.js';
import { StoreWorker } from './store-worker-client.js';

/*
 * Durable acknowledged writes per second with concurrent writers, at several database sizes.
 * A write is an update of a random existing ~1.2 KiB pod; it counts once its promise resolves,
 * i.e. after the fdatasync that covers it. Each size runs in its own worker process (no shared
 * heap); rounds alternate between sizes so that background load hits them alike; medians reported.
 */

export interface StoreBenchOptions {
  sizes?: number[];
  writers?: number;
  roundSeconds?: number;
  rounds?: number;
  /** Where store.json goes; default bench/results. */
  resultsDir?: string;
  store?: DurableStoreOptions;
}

export interface StoreBenchRow {
  objects: number;
  writers: number;
  /** Median over rounds. */
  writesPerSecond: number;
  roundsWritesPerSecond: number[];
  /** Medians over rounds, ms. */
  p99LatencyMs: number;
  maxLatencyMs: number;
  /** The slowest single write of all rounds, ms (includes snapshot pauses). */
  worstLatencyMs: number;
  /** Writes covered by one log append (write + fdatasync). */
  writesPerCommit: number;
  snapshotsDuringRounds: number;
}

export interface StoreBenchReport {
  rows: StoreBenchRow[];
  /** Median writes/s at the largest size divided by that at the smallest. */
  largeToSmallRatio: number;
  /** The median, over rounds, of largest/smallest within a round (less swayed by background load). */
  medianRoundRatio: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function summarise(objects: number, writers: number, rounds: RoundResult[]): StoreBenchRow {
  const writes = rounds.reduce((sum, r) => sum + r.writes, 0);
  const commits = rounds.reduce((sum, r) => sum + r.commits, 0);
  return {
    objects,
    writers,
    writesPerSecond: median(rounds.map((r) => r.writesPerSecond)),
    roundsWritesPerSecond: rounds.map((r) => r.writesPerSecond),
    p99LatencyMs: median(rounds.map((r) => r.p99LatencyMs)),
    maxLatencyMs: median(rounds.map((r) => r.maxLatencyMs)),
    worstLatencyMs: Math.max(...rounds.map((r) => r.maxLatencyMs)),
    writesPerCommit: Math.round((writes / Math.max(1, commits)) * 10) / 10,
    snapshotsDuringRounds: rounds.reduce((sum, r) => sum + r.snapshots, 0),
  };
}

export async function runStoreBench(options: StoreBenchOptions = {}): Promise<StoreBenchReport> {
  const sizes = options.sizes ?? [1_000, 50_000];
  const writers = options.writers ?? 64;
  const workers: StoreWorker[] = [];
  try {
    for (const size of sizes) {
      const worker = new StoreWorker(size, writers, { kind: 'durable', options: options.store });
      workers.push(worker);
      await worker.nextLine(); // ready: prefilled and warmed up
    }
    const results = sizes.map((): RoundResult[] => []);
    for (let r = 0; r < (options.rounds ?? 15); r++) {
      for (const [i, worker] of workers.entries()) results[i]!.push(await worker.round(options.roundSeconds ?? 2));
    }
    const rows = sizes.map((size, i) => summarise(size, writers, results[i]!));
    const round2 = (x: number): number => Math.round(x * 100) / 100;
    const [smallest, largest] = [rows[0]!, rows.at(-1)!];
    const report = {
      rows,
      largeToSmallRatio: round2(largest.writesPerSecond / smallest.writesPerSecond),
      medianRoundRatio: round2(median(largest.roundsWritesPerSecond.map((w, i) => w / smallest.roundsWritesPerSecond[i]!))),
    };
    const resultsDir = options.resultsDir ?? fileURLToPath(new URL('../../bench/results/', import.meta.url));
    await mkdir(resultsDir, { recursive: true });
    await writeFile(join(resultsDir, 'store.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } finally {
    for (const worker of workers) await worker.stop();
  }
}

export function formatStoreBench(report: StoreBenchReport): string {
  const header = ['objects', 'writers', 'writes/s (median)', 'rounds', 'p99 ms', 'max ms', 'worst ms', 'writes/commit', 'snapshots'];
  const lines = report.rows.map((r) =>
    [r.objects, r.writers, r.writesPerSecond, r.roundsWritesPerSecond.join(' '), r.p99LatencyMs, r.maxLatencyMs, r.worstLatencyMs, r.writesPerCommit, r.snapshotsDuringRounds].join(' | '),
  );
  const verdict = `largest/smallest: ${report.largeToSmallRatio} (median per round: ${report.medianRoundRatio}); targets: >= 2000 writes/s, >= 0.8`;
  return [header.join(' | '), ...lines, verdict].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(formatStoreBench(await runStoreBench()) + '\n');
}
