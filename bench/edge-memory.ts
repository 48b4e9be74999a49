import { wallDelay } from '../shared/clock.js';
import { median, round } from './stats.js';

/** A process's memory after full garbage collections, in MiB. */
export interface MemorySample {
  heapUsedMiB: number;
  rssMiB: number;
}

const MiB = 1024 * 1024;

/**
 * This process's heap in use and resident set after full collections (the process must run
 * with --expose-gc): the median of `rounds` samples, each after two collections a moment apart.
 */
export async function settledMemory(rounds = 3): Promise<MemorySample> {
  const collect = globalThis.gc;
  if (!collect) throw new Error('settledMemory needs node --expose-gc');
  const heap: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < rounds; i++) {
    collect();
    await wallDelay(100);
    collect();
    const usage = process.memoryUsage();
    heap.push(usage.heapUsed);
    rss.push(usage.rss);
  }
  return { heapUsedMiB: round(median(heap) / MiB, 2), rssMiB: round(median(rss) / MiB, 2) };
}

/** What each of `count` items added between the idle and the loaded sample, in KiB. */
export function perItemKiB(idle: MemorySample, loaded: MemorySample, count: number): { heapKiB: number; rssKiB: number } {
  if (!Number.isInteger(count) || count <= 0) throw new Error(`perItemKiB: count must be a positive integer, got ${count}`);
  const kib = (idleMiB: number, loadedMiB: number): number => round(((loadedMiB - idleMiB) * 1024) / count, 2);
  return { heapKiB: kib(idle.heapUsedMiB, loaded.heapUsedMiB), rssKiB: kib(idle.rssMiB, loaded.rssMiB) };
}
