import type { Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { objectKey, type Node, type Pod } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';
import type { CacheEvent } from '../informer/informer.js';
import { SharedInformers, type Informers } from '../informer/shared-informers.js';
import { KeyQueue, type Backoff } from '../informer/key-queue.js';
import type { EventRecorder } from '../controllers/events.js';
import { NodeList } from './node-list.js';
import { awaitsScheduling, isTerminal, sameSchedulingInputs } from './pending-pods.js';
import { fitSignature, nodeInfo, pickNode, unschedulableMessage } from './pick-node.js';
import { PodPlacement, PodRequestsCache, type PodRequests } from './pod-placement.js';
import { unschedulableReporter } from './unschedulable.js';

export interface SchedulerOptions {
  api: ApiClient;
  /** The cloud's shared informers (default: the scheduler's own). */
  informers?: Informers;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /** Pods naming another scheduler are left alone (default `default-scheduler`). */
  schedulerName?: string;
  /** Retry of a pod no node fits (default 1 s doubling to 10 s, as kube-scheduler). */
  backoff?: Backoff;
  /** Where a Warning FailedScheduling Event goes when no node fits a pod (none if absent). */
  events?: EventRecorder;
}

export interface SchedulerHandle {
  /** Pod keys waiting to be scheduled (now or after their backoff). */
  readonly queued: number;
  /** Stops the watches, the queue and the worker. Idempotent. */
  close(): Promise<void>;
}

const MAX_BINDINGS_IN_FLIGHT = 32;

/**
 * The scheduler decides only: for each pending pod, filter then score the nodes (pickNode)
 * and write a Binding. Pods are queued by key; a pod no node fits is told why (PodScheduled=False,
 * reason Unschedulable, kube-scheduler's message, a FailedScheduling Event) and retried with
 * backoff; every pending pod is re-queued when a node's fitness changes, and every unschedulable
 * one when a pod leaves a node. Resolves once both caches have their first list.
 */
export async function startScheduler(options: SchedulerOptions): Promise<SchedulerHandle> {
  const { api, clock, signal, schedulerName = 'default-scheduler' } = options;
  const logger = options.logger.child('scheduler');
  const informers = options.informers ?? new SharedInformers(api, { clock, logger });
  const queue = new KeyQueue(clock, options.backoff ?? { minMs: 1_000, maxMs: 10_000 });
  const pods = new Map<string, Pod>();
  const nodes = new NodeList();
  const placement = new PodPlacement();
  const requests = new PodRequestsCache();
  const reportUnschedulable = unschedulableReporter({ api, clock, logger, events: options.events });
  /** Where the next pick starts filtering (kube-scheduler's nextStartNodeIndex). */
  let nextStart = 0;
  /** Bindings written but not yet seen through the watch. */
  const assumed = new Map<string, string>();

  const wants = (pod: Pod): boolean => awaitsScheduling(pod, schedulerName);
  /** Re-queues every pending pod, once per turn however many nodes changed in it (a relist of 1,000 nodes is one walk). */
  let requeueDue = false;
  const requeuePending = (): void => {
    if (requeueDue) return;
    requeueDue = true;
    queueMicrotask(() => {
      requeueDue = false;
      for (const [key, pod] of pods) if (wants(pod)) queue.add(key);
    });
  };
  /** Pods no node fitted at their last attempt: retried at once when a pod leaves a node (as kube-scheduler on AssignedPodDelete). */
  const unschedulable = new Set<string>();
  const placePod = (key: string, node: string | undefined, podRequests?: PodRequests): void => {
    const was = placement.nodeOf(key);
    placement.set(key, node, podRequests);
    if (was !== undefined && placement.nodeOf(key) !== was) for (const waiting of unschedulable) queue.add(waiting);
  };

  const onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const key = objectKey(event.object.metadata);
    if (event.type === 'DELETED') {
      if (pods.get(key)?.metadata.uid === event.object.metadata.uid) {
        pods.delete(key);
        unschedulable.delete(key);
        requests.forget(event.object.metadata.uid);
        placePod(key, undefined);
      }
      return;
    }
    const assumedNode = assumed.get(key);
    const pod = assumedNode && !event.object.spec.nodeName ? { ...event.object, spec: { ...event.object.spec, nodeName: assumedNode } } : event.object;
    pods.set(key, pod);
    const node = isTerminal(pod) ? undefined : pod.spec.nodeName;
    placePod(key, node, node === undefined ? undefined : requests.of(pod));
    // A change to the status alone (e.g. our own PodScheduled=False) does not change where the
    // pod fits, so it does not cut short the pod's backoff (as kube-scheduler's isPodUpdated).
    if (wants(pod) && !(event.type === 'MODIFIED' && sameSchedulingInputs(event.old, event.object))) queue.add(key);
  };
  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return;
    const name = event.object.metadata.name!;
    // A heartbeat changes nothing a pick reads: the node's facts are kept, not worked out again.
    if (event.type === 'MODIFIED' && nodes.get(name) && fitSignature(event.old) === fitSignature(event.object)) return;
    if (event.type === 'DELETED') {
      nodes.delete(name);
      placement.dropNode(name);
    } else nodes.set(nodeInfo(event.object, placement.usageOf(name)));
    requeuePending();
  };

  const bind = async (key: string, pod: Pod, nodeName: string): Promise<void> => {
    const { namespace = 'default', name = '' } = pod.metadata;
    assumed.set(key, nodeName);
    try {
      await api.create(
        { resource: 'pods', namespace, name, subresource: 'binding' },
        { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
      );
      queue.forget(key);
      logger.info('bound pod', { pod: key, node: nodeName });
    } catch (err) {
      // Forget the assumption: the pod is as the watch last showed it.
      if (pods.get(key)?.spec.nodeName === nodeName) pods.set(key, pod);
      placePod(key, undefined);
      if (isKedgeError(err, 'NotFound')) return queue.forget(key);
      logger.warn('binding failed', { pod: key, node: nodeName, error: String(err) });
      queue.addRateLimited(key);
    } finally {
      assumed.delete(key);
    }
  };

  /** Decides one pod now; the binding is written in the background (as kube-scheduler binds asynchronously). */
  const scheduleOne = (key: string): Promise<void> | undefined => {
    const pod = pods.get(key);
    if (!pod || !wants(pod)) {
      unschedulable.delete(key);
      return void queue.forget(key);
    }
    const podRequests = requests.of(pod);
    const pick = pickNode(pod, nodes.all, { start: nextStart, requests: podRequests });
    nextStart = nodes.size === 0 ? 0 : (nextStart + pick.processed) % nodes.size;
    if (pick.node === undefined) {
      const message = unschedulableMessage(pick.nodes, pick.reasons);
      logger.info('no node fits pod', { pod: key, message });
      unschedulable.add(key);
      queue.addRateLimited(key);
      return reportUnschedulable(key, pod, message);
    }
    const nodeName = pick.node;
    unschedulable.delete(key);
    // Assume the binding until the watch shows it, so the next pick counts this pod.
    pods.set(key, { ...pod, spec: { ...pod.spec, nodeName } });
    placement.set(key, nodeName, podRequests);
    return bind(key, pod, nodeName);
  };

  const stop = new AbortController();
  const binding = new Set<Promise<void>>();
  const worker = (async () => {
    for (let key = await queue.take(stop.signal); key !== undefined; key = await queue.take(stop.signal)) {
      const bound = scheduleOne(key);
      if (!bound) continue;
      binding.add(bound);
      void bound.finally(() => binding.delete(bound));
      if (binding.size >= MAX_BINDINGS_IN_FLIGHT) await Promise.race(binding);
    }
    await Promise.all(binding);
  })();

  const synced = new Set<string>();
  let allSynced!: () => void;
  const ready = new Promise<void>((resolve) => (allSynced = resolve));
  const markSynced = (resource: string) => (event: { type: string }): void => {
    if (event.type === 'SYNCED' && synced.add(resource).size === 2) allSynced();
  };
  const nodesSynced = markSynced('nodes');
  const podsSynced = markSynced('pods');
  const subscriptions: Subscription[] = [
    informers.of<Node>({ resource: 'nodes' }).subscribe((e) => (onNode(e), nodesSynced(e))),
    informers.of<Pod>({ resource: 'pods' }).subscribe((e) => (onPod(e), podsSynced(e))),
  ];

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      for (const s of subscriptions) s.unsubscribe();
      stop.abort();
      queue.close();
      await worker;
      allSynced();
    })());
  const onAbort = (): void => void close();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) await close();

  await ready;
  return { get queued() { return queue.length; }, close };
}
