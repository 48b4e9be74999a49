import type { Node, Pod, Taint, Toleration } from '../../shared/types.js';
import { NO_REQUESTS, podRequests, type NodeUsage, type PodRequests } from './pod-placement.js';
import { quantityMilliValue, quantityValue } from './quantity.js';

/**
 * Placement, decided purely, as kube-scheduler's default profile does: filter the nodes a pod
 * may run on, then score the rest and take the best.
 *
 * Filters (in kube-scheduler's plugin order; NodeReady is kedge's own, where kube-scheduler
 * relies on the node lifecycle controller's not-ready taints): NodeUnschedulable,
 * TaintToleration, NodeReady, NodeAffinity, NodeResourcesFit. A node is dropped at the first
 * filter it fails; that filter's reasons are what an unschedulable pod is told.
 *
 * Scores, each normalised to 0–100 and weighted as kube-scheduler's defaults weigh them:
 * NodeResourcesFit (LeastAllocated, cpu and memory) ×1, NodeResourcesBalancedAllocation ×1,
 * NodeAffinity (preferred terms) ×2, TaintToleration (PreferNoSchedule) ×3. Ties go to the
 * node with the fewest pods, then to the first name.
 */

export const MAX_NODE_SCORE = 100;
export const WEIGHTS = { NodeResourcesFit: 1, NodeResourcesBalancedAllocation: 1, NodeAffinity: 2, TaintToleration: 3 } as const;

export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';
export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_NOT_READY = 'node(s) were not ready';
export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const untoleratedTaintReason = (taint: Taint): string => `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;

/** core/v1 NodeSelectorRequirement, NodeSelectorTerm and NodeAffinity (not in shared/types). */
export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}
export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: { weight: number; preference: NodeSelectorTerm }[];
}

export function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.operator === 'Exists') return !toleration.key || toleration.key === taint.key;
  return toleration.key === taint.key && (toleration.value ?? '') === (taint.value ?? '');
}

/** What a node offers to any pod, worked out once per node object (nodes are immutable snapshots). */
interface Offer {
  ready: boolean;
  unschedulable: boolean;
  labels: Record<string, string>;
  fields: Record<string, string>;
  hardTaints: Taint[];
  softTaints: Taint[];
  /** Allocatable millicores, bytes and pods; a missing or malformed quantity is 0, as kube-scheduler reads it. */
  cpu: number;
  memory: number;
  pods: number;
}

/** Per-node facts worked out so far; keyed by node object, so a changed node is seen afresh. */
export type NodeOffers = WeakMap<Node, Offer>;

function offerOf(node: Node, offers: NodeOffers): Offer {
  let offer = offers.get(node);
  if (!offer) {
    const taints = node.spec?.taints ?? [];
    const allocatable = node.status?.allocatable ?? {};
    const quantity = (name: string, parse: (text: string) => number | undefined): number => Math.max(0, parse(allocatable[name] ?? '0') ?? 0);
    offer = {
      ready: isReady(node),
      unschedulable: node.spec?.unschedulable ?? false,
      labels: node.metadata.labels ?? {},
      fields: { 'metadata.name': node.metadata.name ?? '' },
      hardTaints: taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute'),
      softTaints: taints.filter((t) => t.effect === 'PreferNoSchedule'),
      cpu: quantity('cpu', quantityMilliValue),
      memory: quantity('memory', quantityValue),
      pods: quantity('pods', quantityValue),
    };
    offers.set(node, offer);
  }
  return offer;
}

function matchesRequirement(req: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1 || !/^[+-]?\d+$/.test(value!) || !/^[+-]?\d+$/.test(values[0]!)) return false;
      const [actual, bound] = [BigInt(value!), BigInt(values[0]!)];
      return req.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

/** A term matches when all its expressions (and fields) do; a term with neither matches nothing. */
export function matchesTerm(term: NodeSelectorTerm, labels: Record<string, string>, fields: Record<string, string> = {}): boolean {
  const expressions = term.matchExpressions ?? [];
  const fieldReqs = term.matchFields ?? [];
  if (expressions.length === 0 && fieldReqs.length === 0) return false;
  return expressions.every((r) => matchesRequirement(r, labels)) && fieldReqs.every((r) => matchesRequirement(r, fields));
}

const affinityOf = (pod: Pod): NodeAffinity | undefined => (pod.spec.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;

/** What the pod asks, worked out once per pick rather than once per node. */
interface Ask {
  requests: PodRequests;
  tolerations: Toleration[];
  toleratesUnschedulable: boolean;
  nodeSelector: [string, string][];
  required: NodeSelectorTerm[] | undefined;
}

function askOf(pod: Pod, requests: PodRequests = podRequests(pod)): Ask {
  const tolerations = pod.spec.tolerations ?? [];
  return {
    requests,
    tolerations,
    toleratesUnschedulable: tolerations.some((tol) => tolerates(tol, { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' })),
    nodeSelector: Object.entries(pod.spec.nodeSelector ?? {}),
    required: affinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
  };
}

const FITS: readonly string[] = Object.freeze([]);
const UNUSED: NodeUsage = Object.freeze({ pods: 0, ...NO_REQUESTS });

/** The failing filter's reasons, or FITS. */
function filter(ask: Ask, offer: Offer, used: NodeUsage): readonly string[] {
  // NodeUnschedulable
  if (offer.unschedulable && !ask.toleratesUnschedulable) return [REASON_UNSCHEDULABLE];
  // TaintToleration
  for (const taint of offer.hardTaints) if (!ask.tolerations.some((tol) => tolerates(tol, taint))) return [untoleratedTaintReason(taint)];
  // NodeReady
  if (!offer.ready) return [REASON_NOT_READY];
  // NodeAffinity: the nodeSelector and the required terms (ORed) must both match.
  for (const [key, value] of ask.nodeSelector) if (offer.labels[key] !== value) return [REASON_AFFINITY];
  if (ask.required && !ask.required.some((term) => matchesTerm(term, offer.labels, offer.fields))) return [REASON_AFFINITY];
  // NodeResourcesFit
  const { requests } = ask;
  const tooManyPods = used.pods + 1 > offer.pods;
  const cpuShort = requests.cpu > 0 && requests.cpu > offer.cpu - used.cpu;
  const memoryShort = requests.memory > 0 && requests.memory > offer.memory - used.memory;
  if (!tooManyPods && !cpuShort && !memoryShort) return FITS;
  const reasons: string[] = [];
  if (tooManyPods) reasons.push(REASON_TOO_MANY_PODS);
  if (cpuShort) reasons.push('Insufficient cpu');
  if (memoryShort) reasons.push('Insufficient memory');
  return reasons;
}

/**
 * Why the pod cannot go on the node: the failing filter's reasons (empty when it fits).
 * `usage` is what the node's pods already take.
 */
export function filterReasons(pod: Pod, node: Node, usage: NodeUsage = UNUSED, offers: NodeOffers = new WeakMap()): readonly string[] {
  return filter(askOf(pod), offerOf(node, offers), usage);
}

export function fits(pod: Pod, node: Node, usage?: NodeUsage, offers: NodeOffers = new WeakMap()): boolean {
  return filterReasons(pod, node, usage, offers).length === 0;
}

/** kube-scheduler's leastRequestedScore: the free share of the resource, 0–100. */
function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), with non-zero requests. */
function leastAllocatedScore(offer: Offer, used: PodRequests, requests: PodRequests): number {
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
function balancedAllocationScore(offer: Offer, used: PodRequests, requests: PodRequests): number {
  // With one resource (or none) allocatable, the deviation is 0.
  if (offer.cpu === 0 || offer.memory === 0) return MAX_NODE_SCORE;
  const cpu = Math.min(1, (used.cpu + requests.cpu) / offer.cpu);
  const memory = Math.min(1, (used.memory + requests.memory) / offer.memory);
  return Math.trunc((1 - Math.abs(cpu - memory) / 2) * MAX_NODE_SCORE);
}

/** kube-scheduler's DefaultNormalizeScore: scale to 0–100 by the highest score, optionally reversed. */
function normalize(scores: number[], reverse: boolean): number[] {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) return scores.map(() => (reverse ? MAX_NODE_SCORE : 0));
  return scores.map((s) => {
    const scaled = Math.floor((MAX_NODE_SCORE * s) / max);
    return reverse ? MAX_NODE_SCORE - scaled : scaled;
  });
}

export type Pick =
  | { node: string; score: number }
  | {
      node: undefined;
      /** How many nodes were considered. */
      nodes: number;
      /** For each reason, how many nodes gave it (a node may give several, e.g. Insufficient cpu and memory). */
      reasons: Map<string, number>;
    };

/**
 * The best node the pod fits, or why none does. `usage` holds each node's pods (incl. assumed
 * ones) and their summed requests, kept incrementally by PodPlacement; `offers` caches
 * per-node facts across calls (the scheduler passes one that lives as long as it does), so a
 * pick costs O(nodes), never O(pods).
 */
export function pickNode(pod: Pod, nodes: Iterable<Node>, usage: ReadonlyMap<string, NodeUsage>, offers: NodeOffers = new WeakMap()): Pick {
  const requests = podRequests(pod);
  const ask = askOf(pod, requests);
  const reasons = new Map<string, number>();
  let total = 0;
  const feasible: { name: string; offer: Offer; used: NodeUsage }[] = [];
  for (const node of nodes) {
    const name = node.metadata.name;
    if (!name) continue;
    total++;
    const offer = offerOf(node, offers);
    const used = usage.get(name) ?? UNUSED;
    const failed = filter(ask, offer, used);
    if (failed === FITS) feasible.push({ name, offer, used });
    else for (const reason of failed) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
  if (feasible.length === 0) return { node: undefined, nodes: total, reasons };

  const softTolerations = ask.tolerations.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  const preferred = (affinityOf(pod)?.preferredDuringSchedulingIgnoredDuringExecution ?? []).filter((p) => p.weight > 0);
  const affinity = normalize(
    feasible.map(({ offer }) => {
      let sum = 0;
      for (const p of preferred) if (matchesTerm(p.preference, offer.labels, offer.fields)) sum += p.weight;
      return sum;
    }),
    false,
  );
  const taints = normalize(
    feasible.map(({ offer }) => {
      let intolerable = 0;
      for (const taint of offer.softTaints) if (!softTolerations.some((tol) => tolerates(tol, taint))) intolerable++;
      return intolerable;
    }),
    true,
  );
  let best: { name: string; score: number; pods: number } | undefined;
  feasible.forEach(({ name, offer, used }, i) => {
    const score =
      WEIGHTS.NodeResourcesFit * leastAllocatedScore(offer, used, requests) +
      WEIGHTS.NodeResourcesBalancedAllocation * balancedAllocationScore(offer, used, requests) +
      WEIGHTS.NodeAffinity * affinity[i]! +
      WEIGHTS.TaintToleration * taints[i]!;
    const better = !best || score > best.score || (score === best.score && (used.pods < best.pods || (used.pods === best.pods && name < best.name)));
    if (better) best = { name, score, pods: used.pods };
  });
  return { node: best!.name, score: best!.score };
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

/** What about a node can change where pods fit or how they score: a change here re-queues unscheduled pods. */
export function fitSignature(node: Node): string {
  return JSON.stringify([isReady(node), node.spec?.unschedulable ?? false, node.spec?.taints ?? [], node.metadata.labels ?? {}, node.status?.allocatable ?? {}]);
}
