import type { Target } from './report.js';

type Results = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Row = (figure: string, measured: number | undefined, target: string) => Target;

/** `(rules off X; on / off R, per round R', p P)` for one figure of the rules A/B. */
function againstOff(a: Results | undefined, figure: string): string {
  const c = a?.onVsOff?.[figure];
  return `(rules off ${a?.off?.[figure] ?? '–'}; on / off ${c?.ratio ?? '–'}, per round ${c?.medianRoundRatio ?? '–'}, p ${c?.p ?? '–'})`;
}

/** Issue 23's figures: API latency with kube-apiserver's validation and field ownership, against without. */
export function apiRulesTargets(r: Results, t: Row): Target[] {
  const a = r.apiRules;
  const s = a?.settings;
  const shape = `${s?.pods} pods, median of ${s?.rounds} interleaved rounds`;
  return [
    t(`API with validation and field ownership (${shape}): mutating p50 (ms), creates, merge patches, applies at ${s?.inFlight} in flight`, a?.on?.mutatingP50Ms, againstOff(a, 'mutatingP50Ms')),
    t('the same: mutating p99 (ms)', a?.on?.mutatingP99Ms, againstOff(a, 'mutatingP99Ms')),
    t('the same: server-side apply p99 (ms)', a?.on?.applyP99Ms, againstOff(a, 'applyP99Ms')),
    t(`the same: list of all ${s?.pods} pods, unpaged (ms)`, a?.on?.listMs, againstOff(a, 'listMs')),
    t(`the same: list of all pods in pages of ${s?.pageSize} (ms)`, a?.on?.pagedListMs, againstOff(a, 'pagedListMs')),
  ];
}
