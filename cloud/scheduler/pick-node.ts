import type { Node, Pod, Toleration } from '../../shared/types.js';
import { askOf, filter, FITS, isReady, nodeOffer, UNUSED, type Offer } from './filters.js';
import { nodeAffinityOf } from './node-affinity.js';
import { podRequests, type NodeUsage, type PodRequests } from './pod-placement.js';
import { balancedAllocationScore, intolerableTaints, leastAllocatedScore, MAX_NODE_SCORE, normalize, preferredAffinityScore, WEIGHTS } from './scores.js';

/**
 * Placement, decided purely, as kube-scheduler's default profile does: filter the nodes
 * (filters.ts) until enough feasible ones are found, score those (scores.ts) and take the
 * best. Ties go to the node with the fewest pods, then to the first name.
 */

/** kube-scheduler's minFeasibleNodesToFind and minFeasibleNodesPercentageToFind. */
const MIN_FEASIBLE_NODES = 100;
const MIN_FEASIBLE_PERCENTAGE = 5;

/**
 * How many feasible nodes are enough (kube-scheduler's numFeasibleNodesToFind with the
 * adaptive percentageOfNodesToScore): all below 100 nodes, else max(5%, 50% − nodes/125) of
 * them, at least 100. At 1,000 nodes: 420.
 */
export function feasibleNodesToFind(nodes: number): number {
  if (nodes < MIN_FEASIBLE_NODES) return nodes;
  const percentage = Math.max(MIN_FEASIBLE_PERCENTAGE, 50 - Math.trunc(nodes / 125));
  return Math.max(MIN_FEASIBLE_NODES, Math.trunc((nodes * percentage) / 100));
}

/**
 * A node as a pick sees it (kube-scheduler's NodeInfo): what it offers, worked out once per
 * node object, and what its pods take, which PodPlacement keeps up to date in place.
 */
export interface NodeInfo {
  readonly offer: Offer;
  readonly used: NodeUsage;
}

export const nodeInfo = (node: Node, used: NodeUsage = UNUSED): NodeInfo => ({ offer: nodeOffer(node), used });

export interface PickOptions {
  /** Where in `nodes` filtering starts: the previous pick's start + processed (round robin). */
  start?: number;
  /** The pod's requests, if the caller has them already. */
  requests?: PodRequests;
  /** VolumeBinding's Filter (volume-binding.ts), run on nodes the other filters pass; empty when the node fits. */
  volumeFilter?: (offer: Offer) => readonly string[];
}

export type Pick =
  | { node: string; score: number; processed: number }
  | {
      node: undefined;
      /** How many nodes were considered (all of them: a pod no node fits looks at every one). */
      nodes: number;
      processed: number;
      /** For each reason, how many nodes gave it (a node may give several, e.g. Insufficient cpu and memory). */
      reasons: Map<string, number>;
    };

/**
 * The best node the pod fits, or why none does. Each node's usage holds its pods (incl.
 * assumed ones) and their summed requests, so a pick costs O(nodes looked at), never O(pods).
 * `processed` says how many nodes were looked at, for the next pick's start.
 */
export function pickNode(pod: Pod, nodes: readonly NodeInfo[], options: PickOptions = {}): Pick {
  const { requests = podRequests(pod), volumeFilter } = options;
  const ask = askOf(pod, requests);
  const count = nodes.length;
  const enough = feasibleNodesToFind(count);
  const start = count === 0 ? 0 : (options.start ?? 0) % count;
  // Filter, from `start` round the list, until enough nodes are feasible; score their resources on the way.
  const feasible: NodeInfo[] = [];
  const scores: number[] = [];
  let reasons: Map<string, number> | undefined;
  let anySoftTaint = false;
  let processed = 0;
  for (let i = start; processed < count && feasible.length < enough; i = i + 1 === count ? 0 : i + 1) {
    processed++;
    const info = nodes[i]!;
    const { offer, used } = info;
    let failed = filter(ask, offer, used);
    if (failed === FITS && volumeFilter) {
      const volumeReasons = volumeFilter(offer);
      if (volumeReasons.length > 0) failed = volumeReasons;
    }
    if (failed === FITS) {
      feasible.push(info);
      anySoftTaint ||= offer.softTaints.length > 0;
      scores.push(WEIGHTS.NodeResourcesFit * leastAllocatedScore(offer, used, requests) + WEIGHTS.NodeResourcesBalancedAllocation * balancedAllocationScore(offer, used, requests));
    } else {
      reasons ??= new Map();
      for (const reason of failed) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
  }
  if (feasible.length === 0) return { node: undefined, nodes: count, processed, reasons: reasons ?? new Map() };

  // The scores that need every feasible node (normalized by the highest), only when they can differ.
  addNormalized(scores, preferredAffinity(pod, feasible), WEIGHTS.NodeAffinity);
  addNormalized(scores, taintCounts(ask.tolerations, feasible, anySoftTaint), WEIGHTS.TaintToleration, true);

  let best = 0;
  for (let i = 1; i < feasible.length; i++) {
    const score = scores[i]!;
    const bestScore = scores[best]!;
    if (score < bestScore) continue;
    const pods = feasible[i]!.used.pods;
    const bestPods = feasible[best]!.used.pods;
    if (score > bestScore || pods < bestPods || (pods === bestPods && feasible[i]!.offer.name < feasible[best]!.offer.name)) best = i;
  }
  return { node: feasible[best]!.offer.name, score: scores[best]!, processed };
}

/** The raw NodeAffinity scores, or undefined when the pod prefers nothing (all 0 then). */
function preferredAffinity(pod: Pod, feasible: readonly NodeInfo[]): number[] | undefined {
  const preferred = (nodeAffinityOf(pod)?.preferredDuringSchedulingIgnoredDuringExecution ?? []).filter((p) => p.weight > 0);
  return preferred.length === 0 ? undefined : feasible.map(({ offer }) => preferredAffinityScore(preferred, offer));
}

/** The raw TaintToleration scores, or undefined when no feasible node has a PreferNoSchedule taint (all 0 then). */
function taintCounts(tolerations: readonly Toleration[], feasible: readonly NodeInfo[], anySoftTaint: boolean): number[] | undefined {
  if (!anySoftTaint) return undefined;
  const soft = tolerations.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  return feasible.map(({ offer }) => intolerableTaints(soft, offer));
}

/** Adds weight × the normalized raw scores; `undefined` raw scores are all 0 (normalized: 0, or 100 reversed). */
function addNormalized(scores: number[], raw: number[] | undefined, weight: number, reverse = false): void {
  if (raw === undefined && !reverse) return;
  const normalized = raw === undefined ? undefined : normalize(raw, reverse);
  for (let i = 0; i < scores.length; i++) scores[i] = scores[i]! + weight * (normalized?.[i] ?? MAX_NODE_SCORE);
}

/**
 * kube-scheduler's FitError message: "0/3 nodes are available: 1 node(s) had untolerated taint
 * {node.kubernetes.io/unreachable: }, 2 Insufficient cpu." — each "count reason" string,
 * sorted as Go's sort.Strings sorts them; with no nodes at all, kube-scheduler's
 * ErrNoNodesAvailable text.
 */
export function unschedulableMessage(nodes: number, reasons: ReadonlyMap<string, number>): string {
  if (nodes === 0) return 'no nodes available to schedule pods';
  const counted = [...reasons].map(([reason, count]) => `${count} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `0/${nodes} nodes are available: ${counted.join(', ')}.`;
}

/** What about a node can change where pods fit or how they score: a change here re-queues pending pods. */
export function fitSignature(node: Node): string {
  return JSON.stringify([isReady(node), node.spec?.unschedulable ?? false, node.spec?.taints ?? [], node.metadata.labels ?? {}, node.status?.allocatable ?? {}]);
}
