/** Small statistics for benchmark figures. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Two-sided exact permutation test of the difference of medians: the share of all ways to split
 * the pooled values into groups of these sizes whose medians differ at least as much as these
 * do. Small: the noise on a shared machine; under 0.05: beyond it. Exact up to 20 values.
 */
export function medianDifferenceP(a: readonly number[], b: readonly number[]): number {
  const pooled = [...a, ...b];
  if (a.length === 0 || b.length === 0 || pooled.length > 20) return NaN;
  const observed = Math.abs(median(a) - median(b));
  let splits = 0;
  let asExtreme = 0;
  for (let mask = 0; mask < 1 << pooled.length; mask++) {
    if (popCount(mask) !== a.length) continue;
    const first = pooled.filter((_, i) => mask & (1 << i));
    const second = pooled.filter((_, i) => !(mask & (1 << i)));
    splits++;
    if (Math.abs(median(first) - median(second)) >= observed - 1e-9) asExtreme++;
  }
  return asExtreme / splits;
}

function popCount(n: number): number {
  let count = 0;
  for (let m = n; m; m &= m - 1) count++;
  return count;
}

/** A contender against a baseline over interleaved rounds (round i of each ran back to back). */
export interface RoundsComparison {
  baseline: number;
  contender: number;
  /** contender / baseline, of the medians over rounds. */
  ratio: number;
  /** The median over rounds of contender / baseline within a round: less swayed by load that comes and goes. */
  medianRoundRatio: number;
  /** medianDifferenceP of the two sets of rounds: under 0.05, a difference beyond the noise. */
  p: number;
}

export function compareRounds(baseline: readonly number[], contender: readonly number[]): RoundsComparison {
  if (baseline.length === 0 || baseline.length !== contender.length) throw new Error(`rounds differ in number: ${baseline.length} and ${contender.length}`);
  const roundRatios = contender.map((c, i) => c / baseline[i]!);
  return {
    baseline: median(baseline),
    contender: median(contender),
    ratio: round(median(contender) / median(baseline), 2),
    medianRoundRatio: round(median(roundRatios), 2),
    p: round(medianDifferenceP(baseline, contender), 3),
  };
}
