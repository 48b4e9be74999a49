type Results = Record<string, unknown>;

/** Figures only a run of their own measures (the scale suite on etcd, or at another size with `--save-as`). */
export const isKeptApart = (key: string): boolean => key === 'scaleEtcd' || /^scale\d+$/.test(key);

export interface MergeOptions {
  /** The suites this run was limited to (`--only`), as the report names them; undefined for a full run. */
  onlySuites?: string[];
}

/**
 * latest.json after a run: this run's figures over the previous file's. A run of some suites keeps every
 * other figure and says which it ran (`onlySuites`); a full run replaces all of them but the figures kept
 * apart, which it names in `keptFromEarlierRuns` so that the report does not take them for its own.
 */
export function mergeLatest(previous: Results, results: Results, { onlySuites }: MergeOptions): Results {
  const { onlySuites: _only, keptFromEarlierRuns: _kept, ...earlier } = previous;
  if (onlySuites) return { ...earlier, ...results, onlySuites };
  const kept = Object.keys(earlier).filter((k) => isKeptApart(k) && !(k in results));
  const carried = Object.fromEntries(kept.map((k) => [k, earlier[k]]));
  return { ...carried, ...results, ...(kept.length ? { keptFromEarlierRuns: kept } : {}) };
}
