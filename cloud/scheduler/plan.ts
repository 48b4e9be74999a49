import { isKedgeError } from '../../shared/errors.js';
import type { Node, Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import type { Backoff } from '../informer/key-queue.js';
import { awaitsScheduling, isTerminal, sameSchedulingInputs } from './pending-pods.js';
import { fitSignature, pickNode, unschedulableMessage, type NodeInfo } from './pick-node.js';
import { podRequests, type PodRequests } from './pod-placement.js';
import { afterPick, volumePreFilter, type VolumeLookup } from './volume-binding.js';
import type { PersistentVolumeClaim } from '../../shared/storage-types.js';

/**
 * The scheduler's decisions, each pure: what a watch event does to its cache and queue, which
 * node a pod goes to, and what follows a failed binding. scheduling-loop.ts applies them.
 */

/** Retry of a pod no node fits: 1 s doubling to 10 s, as kube-scheduler. */
export const UNSCHEDULABLE_BACKOFF: Backoff = Object.freeze({ minMs: 1_000, maxMs: 10_000 });

export type PodEventEffect =
  | { type: 'ignore' }
  /** The pod is gone: forget it and the room it took. */
  | { type: 'remove' }
  /** Keep this version of the pod, taking room on `node` (none: undefined); queue its key if `queue`. */
  | { type: 'store'; pod: Pod; node: string | undefined; queue: boolean };

export interface PodEventContext {
  /** The pod as the cache holds it now. */
  known: Pod | undefined;
  /** The node a binding being written names (the watch has not shown it yet). */
  assumedNode: string | undefined;
  schedulerName: string;
}

export function planPodEvent(event: CacheEvent<Pod>, { known, assumedNode, schedulerName }: PodEventContext): PodEventEffect {
  if (event.type === 'SYNCED') return { type: 'ignore' };
  if (event.type === 'DELETED') return known?.metadata.uid === event.object.metadata.uid ? { type: 'remove' } : { type: 'ignore' };
  const seen = event.object;
  const pod = assumedNode && !seen.spec.nodeName ? { ...seen, spec: { ...seen.spec, nodeName: assumedNode } } : seen;
  const node = isTerminal(pod) ? undefined : pod.spec.nodeName;
  // A change to the status alone (e.g. our own PodScheduled=False) does not change where the
  // pod fits, so it does not cut short the pod's backoff (as kube-scheduler's isPodUpdated).
  const changed = !(event.type === 'MODIFIED' && sameSchedulingInputs(event.old, seen));
  return { type: 'store', pod, node, queue: awaitsScheduling(pod, schedulerName) && changed };
}

/**
 * What a node event does. A heartbeat changes nothing a pick reads, so a known node whose fit is
 * the same is ignored; any other change stores or removes it, and every pending pod is retried.
 */
export function planNodeEvent(event: CacheEvent<Node>, known: boolean): 'ignore' | 'remove' | 'store' {
  if (event.type === 'SYNCED') return 'ignore';
  if (event.type === 'DELETED') return 'remove';
  if (event.type === 'MODIFIED' && known && fitSignature(event.old) === fitSignature(event.object)) return 'ignore';
  return 'store';
}

/** A pod leaving a node makes room there: every unschedulable pod is retried at once (kube-scheduler's AssignedPodDelete). */
export const makesRoom = (was: string | undefined, now: string | undefined): boolean => was !== undefined && now !== was;

/** Keys of the pods waiting for this scheduler, in cache order. */
export function pendingKeys(pods: Iterable<[string, Pod]>, schedulerName: string): string[] {
  const keys: string[] = [];
  for (const [key, pod] of pods) if (awaitsScheduling(pod, schedulerName)) keys.push(key);
  return keys;
}

export type ScheduleAction =
  /** Not ours (any more): forget the key's backoff and its unschedulable mark. */
  | { type: 'drop' }
  /** No node fits: say why, mark it unschedulable and retry it after its backoff. */
  | { type: 'unschedulable'; message: string }
  /** Assume the pod on `node` and write the binding. */
  | { type: 'bind'; node: string; requests: PodRequests }
  /** The pod goes to `node` once its claims are bound there: tell them the node (selected-node) and wait. */
  | { type: 'selectNode'; node: string; claims: readonly PersistentVolumeClaim[] }
  /** Its claims know their node and are being bound: wait for them (their updates re-queue the pod). */
  | { type: 'awaitVolumes' };

export interface ScheduleInput {
  pod: Pod | undefined;
  schedulerName: string;
  nodes: readonly NodeInfo[];
  /** Where this pick starts filtering (kube-scheduler's nextStartNodeIndex). */
  start: number;
  requestsOf?: (pod: Pod) => PodRequests;
  /** Claims, volumes and classes, for pods that name claims (none: such pods are placed as if they named none). */
  volumes?: VolumeLookup;
}

/** One pod's turn: where it goes, or why nowhere, and where the next pick starts. */
export function planSchedule(input: ScheduleInput): { action: ScheduleAction; nextStart: number } {
  const { pod, nodes, start } = input;
  if (!pod || !awaitsScheduling(pod, input.schedulerName)) return { action: { type: 'drop' }, nextStart: start };
  const volumes = input.volumes ? volumePreFilter(pod, input.volumes) : ({ type: 'none' } as const);
  if (volumes.type === 'unschedulable' && nodes.length > 0) return { action: { type: 'unschedulable', message: `0/${nodes.length} nodes are available: ${volumes.message}.` }, nextStart: start };
  const requests = (input.requestsOf ?? podRequests)(pod);
  const pick = pickNode(pod, nodes, { start, requests, volumeFilter: volumes.type === 'check' ? volumes.filter : undefined });
  const nextStart = nodes.length === 0 ? 0 : (start + pick.processed) % nodes.length;
  if (pick.node === undefined) return { action: { type: 'unschedulable', message: unschedulableMessage(pick.nodes, pick.reasons) }, nextStart };
  const then = afterPick(volumes);
  if (then.type === 'selectNode') return { action: { type: 'selectNode', node: pick.node, claims: then.claims }, nextStart };
  if (then.type === 'wait') return { action: { type: 'awaitVolumes' }, nextStart };
  return { action: { type: 'bind', node: pick.node, requests }, nextStart };
}

/** After a failed binding: a pod gone is done; any other failure (a Conflict, the store down) retries after the pod's backoff. */
export const afterBindingFailure = (err: unknown): 'forget' | 'retry' => (isKedgeError(err, 'NotFound') ? 'forget' : 'retry');
