import type { EndpointSubset } from '../../../shared/service-types.js';

/** Most addresses one Endpoints holds, as kube's endpoints controller keeps it (EndpointSlices have no limit). */
export const MAX_ENDPOINTS_ADDRESSES = 1000;

/** Set on an Endpoints whose addresses were cut to the limit. */
export const OVER_CAPACITY_ANNOTATION = 'endpoints.kubernetes.io/over-capacity';

/**
 * truncateEndpoints: keeps at most `max` addresses. Not-ready ones go first; when the ready
 * ones alone are too many, every subset keeps its share of them (rounded up, the last one
 * taking what is left). Returns the subsets and whether anything was cut. Pure.
 */
export function truncateSubsets(subsets: EndpointSubset[], max = MAX_ENDPOINTS_ADDRESSES): { subsets: EndpointSubset[]; truncated: boolean } {
  const count = (field: 'addresses' | 'notReadyAddresses'): number => subsets.reduce((n, s) => n + (s[field]?.length ?? 0), 0);
  const [ready, notReady] = [count('addresses'), count('notReadyAddresses')];
  if (ready + notReady <= max) return { subsets, truncated: false };
  const cutReady = ready > max;
  const room = cutReady ? max : max - ready;
  const total = cutReady ? ready : notReady;
  let left = room;
  const out = subsets.map((subset) => {
    const field = cutReady ? 'addresses' : 'notReadyAddresses';
    const share = Math.min(Math.ceil(((subset[field]?.length ?? 0) / total) * room), left);
    const kept = (subset[field] ?? []).slice(0, share);
    left -= kept.length;
    const next: EndpointSubset = { ...subset };
    if (kept.length > 0) next[field] = kept;
    else delete next[field];
    if (cutReady) delete next.notReadyAddresses;
    return next;
  });
  return { subsets: out, truncated: true };
}
