import type { Node, Pod, Taint, Toleration } from '../../shared/types.js';
import { matchesTerm, nodeAffinityOf, type NodeSelectorTerm } from './node-affinity.js';
import { NO_REQUESTS, podRequests, type NodeUsage, type PodRequests } from './pod-placement.js';
import { quantityMilliValue, quantityValue } from './quantity.js';

/**
 * The filter plugins, in kube-scheduler's order (NodeReady is kedge's own, where
 * kube-scheduler relies on the node lifecycle controller's not-ready taints):
 * NodeUnschedulable, TaintToleration, NodeReady, NodeAffinity, NodeResourcesFit. A node is
 * dropped at the first filter it fails; that filter's reasons are what an unschedulable pod
 * is told. What a node offers is worked out once per node object (the scheduler keeps it
 * with the node), what a pod asks once per pick, so a filter costs a few comparisons per node.
 */

export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';
export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_NOT_READY = 'node(s) were not ready';
export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const untoleratedTaintReason = (taint: Taint): string => `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;

export function isReady(node: Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** core/v1 Toleration.ToleratesTaint: an empty effect or key matches any; Exists ignores the value. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  const operator: string = toleration.operator || 'Equal';
  if (operator === 'Exists') return true;
  return operator === 'Equal' && (toleration.value ?? '') === (taint.value ?? '');
}

/** What a node offers to any pod, worked out once per node object (nodes are immutable snapshots). */
export interface Offer {
  name: string;
  ready: boolean;
  unschedulable: boolean;
  labels: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string>>;
  hardTaints: readonly Taint[];
  softTaints: readonly Taint[];
  /** Allocatable millicores, bytes and pods; a missing or malformed quantity is 0, as kube-scheduler reads it. */
  cpu: number;
  memory: number;
  pods: number;
}

export function nodeOffer(node: Node): Offer {
  const taints = node.spec?.taints ?? [];
  const allocatable = node.status?.allocatable ?? {};
  const quantity = (name: string, parse: (text: string) => number | undefined): number => Math.max(0, parse(allocatable[name] ?? '0') ?? 0);
  return {
    name: node.metadata.name ?? '',
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
}

/** What the pod asks, worked out once per pick rather than once per node. */
export interface Ask {
  requests: PodRequests;
  tolerations: readonly Toleration[];
  toleratesUnschedulable: boolean;
  nodeSelector: readonly [string, string][];
  required: readonly NodeSelectorTerm[] | undefined;
}

export function askOf(pod: Pod, requests: PodRequests = podRequests(pod)): Ask {
  const tolerations = pod.spec.tolerations ?? [];
  return {
    requests,
    tolerations,
    toleratesUnschedulable: tolerations.some((tol) => tolerates(tol, { key: UNSCHEDULABLE_TAINT, effect: 'NoSchedule' })),
    nodeSelector: Object.entries(pod.spec.nodeSelector ?? {}),
    required: nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
  };
}

/** What filter() answers for a node the pod fits (compare by identity). */
export const FITS: readonly string[] = Object.freeze([]);
export const UNUSED: NodeUsage = Object.freeze({ pods: 0, ...NO_REQUESTS });

/** The failing filter's reasons, or FITS. `used` is what the node's pods already take. */
export function filter(ask: Ask, offer: Offer, used: NodeUsage): readonly string[] {
  // NodeUnschedulable
  if (offer.unschedulable && !ask.toleratesUnschedulable) return [REASON_UNSCHEDULABLE];
  // TaintToleration: the first untolerated NoSchedule/NoExecute taint.
  if (offer.hardTaints.length > 0) for (const taint of offer.hardTaints) if (!ask.tolerations.some((tol) => tolerates(tol, taint))) return [untoleratedTaintReason(taint)];
  // NodeReady
  if (!offer.ready) return [REASON_NOT_READY];
  // NodeAffinity: the nodeSelector and the required terms (ORed) must both match.
  if (ask.nodeSelector.length > 0) for (const [key, value] of ask.nodeSelector) if (offer.labels[key] !== value) return [REASON_AFFINITY];
  if (ask.required && !ask.required.some((term) => matchesTerm(term, offer.labels, offer.fields))) return [REASON_AFFINITY];
  // NodeResourcesFit: every short resource is a reason.
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

/** Why the pod cannot go on the node: the failing filter's reasons (empty when it fits). */
export function filterReasons(pod: Pod, node: Node, usage: NodeUsage = UNUSED): readonly string[] {
  return filter(askOf(pod), nodeOffer(node), usage);
}

export function fits(pod: Pod, node: Node, usage?: NodeUsage): boolean {
  return filterReasons(pod, node, usage).length === 0;
}
