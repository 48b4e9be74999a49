import { setFlagsFromString } from 'node:v8';

/** `kedge cloud`'s default: the heap grows at most half again past what the last full collection left live. */
export const DEFAULT_HEAP_GROWTH_PERCENT = 50;

/**
 * V8's flag for how far the heap may grow past the live set of the last full collection before
 * the next one; none for 0, which leaves it to V8: under a steady write load it lets the heap
 * grow to several times the live set, and the cloud's memory follows V8's estimate of its own
 * speed more than what the cloud holds (kube-apiserver's Go runtime grows to 2×, GOGC=100).
 */
export function heapGrowthFlag(percent: number): string | undefined {
  return percent > 0 ? `--heap-growing-percent=${Math.round(percent)}` : undefined;
}

/** Sets it for this process: V8 reads it at every full collection, so it holds from the next one on. */
export function limitHeapGrowth(percent: number): void {
  const flag = heapGrowthFlag(percent);
  if (flag) setFlagsFromString(flag);
}
