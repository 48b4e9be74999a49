import type { Toleration } from '../../shared/types.js';
import { tolerates, type Offer } from './filters.js';
import { matchesTerm, type PreferredSchedulingTerm } from './node-affinity.js';
import type { PodRequests } from './pod-placement.js';

/**
 * The score plugins, each 0–100 and weighted as kube-scheduler's default profile weighs them:
 * NodeResourcesFit (LeastAllocated over cpu and memory) ×1, NodeResourcesBalancedAllocation
 * ×1, NodeAffinity (preferred terms) ×2, TaintToleration (PreferNoSchedule) ×3. The resource
 * scores read the node's summed requests (kept incrementally), so each is O(1) per node.
 */

export const MAX_NODE_SCORE = 100;
export const WEIGHTS = { NodeResourcesFit: 1, NodeResourcesBalancedAllocation: 1, NodeAffinity: 2, TaintToleration: 3 } as const;

/** kube-scheduler's leastRequestedScore: the free share of the resource, 0–100. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), with non-zero requests. */
export function leastAllocatedScore(offer: Offer, used: PodRequests, requests: PodRequests): number {
  let score = 0;
  let weights = 0;
  if (offer.cpu > 0) {
    score += leastRequested(used.nonZeroCpu + requests.nonZeroCpu, offer.cpu);
    weights++;
  }
  if (offer.memory > 0) {
    score += leastRequested(used.nonZeroMemory + requests.nonZeroMemory, offer.memory);
    weights++;
  }
  return weights === 0 ? 0 : Math.floor(score / weights);
}

/** NodeResourcesBalancedAllocation: 100 × (1 − the standard deviation of the cpu and memory shares requested). */
export function balancedAllocationScore(offer: Offer, used: PodRequests, requests: PodRequests): number {
  // With one resource (or none) allocatable, the deviation is 0.
  if (offer.cpu === 0 || offer.memory === 0) return MAX_NODE_SCORE;
  const cpu = Math.min(1, (used.cpu + requests.cpu) / offer.cpu);
  const memory = Math.min(1, (used.memory + requests.memory) / offer.memory);
  return Math.trunc((1 - Math.abs(cpu - memory) / 2) * MAX_NODE_SCORE);
}

/** NodeAffinity's raw score: the summed weights of the preferred terms the node matches. */
export function preferredAffinityScore(preferred: readonly PreferredSchedulingTerm[], offer: Offer): number {
  let sum = 0;
  for (const p of preferred) if (matchesTerm(p.preference, offer.labels, offer.fields)) sum += p.weight;
  return sum;
}

/** TaintToleration's raw score: how many PreferNoSchedule taints the pod does not tolerate (fewer is better). */
export function intolerableTaints(softTolerations: readonly Toleration[], offer: Offer): number {
  let count = 0;
  for (const taint of offer.softTaints) if (!softTolerations.some((tol) => tolerates(tol, taint))) count++;
  return count;
}

/** kube-scheduler's DefaultNormalizeScore, in place: scale to 0–100 by the highest score, optionally reversed. */
export function normalize(scores: number[], reverse: boolean): number[] {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  for (let i = 0; i < scores.length; i++) {
    const scaled = max === 0 ? 0 : Math.floor((MAX_NODE_SCORE * scores[i]!) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - scaled : scaled;
  }
  return scores;
}
