import type { Target } from './report.js';
import { round } from './stats.js';

type Results = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The scale suite's figures that are compared across sizes: a label and where each is in a run's results. */
const FIGURES: [string, (s: Results) => number | undefined][] = [
  ['pod startup p50 (ms)', (s) => s.podStartupMs?.p50],
  ['pod startup p99 (ms)', (s) => s.podStartupMs?.p99],
  ['mutating API call p99 (ms)', (s) => s.apiMutatingP99Ms],
  ['scheduler throughput (pods bound/s)', (s) => s.schedulerPodsPerSec],
  ['reconnect storm: converge (ms)', (s) => s.reconnectStorm?.convergeMs],
  ['reconnect storm: lost + duplicated pods', (s) => (s.reconnectStorm ? s.reconnectStorm.lost + s.reconnectStorm.duplicated : undefined)],
  ['idle uplink per node (bit/s)', (s) => s.idleUplinkBitsPerNodePerSec],
  ['cloud peak RSS (MiB)', (s) => s.cloudRssMiB],
  ['cloud CPU (cores)', (s) => s.cloudCpuCores],
  ['fleet CPU (cores)', (s) => s.fleetCpuCores],
  ['memory per hollow edge (MiB)', (s) => s.memoryPerHollowEdgeMiB],
];

/** Keys of the scale suite run at other sizes (`--save-as scale2000`), smallest first. */
export const largerRuns = (r: Results): string[] =>
  Object.keys(r)
    .filter((k) => /^scale\d+$/.test(k) && r[k]?.nodes !== undefined)
    .sort((a, b) => r[a].nodes - r[b].nodes);

/** Each figure of a larger run beside the 1,000-node run's, with how much it grew (larger / base). */
export function scaleGrowthTargets(r: Results): Target[] {
  return largerRuns(r).flatMap((key) => {
    const big = r[key];
    return FIGURES.map(([label, of]): Target => {
      const [base, measured] = [of(r), of(big)];
      const growth = base === undefined || measured === undefined || base === 0 ? '–' : `×${round(measured / base, 2)}`;
      return { figure: `${big.nodes} nodes / ${big.pods} pods: ${label}`, measured, target: `(${r.nodes} nodes: ${base ?? '–'}; ${growth})`, met: undefined };
    });
  });
}
