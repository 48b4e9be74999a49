import type { Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { objectKey, type Node, type Pod, type PodCondition } from '../../shared/types.js';
import type { ApiClient } from '../apiserver/client.js';
import { informer, type CacheEvent } from '../hub/informer.js';
import { KeyQueue, type Backoff } from './key-queue.js';
import { fitSignature, pickNode, unschedulableMessage, type NodeOffers } from './pick-node.js';
import { PodPlacement, podRequests } from './pod-placement.js';

export interface SchedulerOptions {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  signal?: AbortSignal;
  /** Pods naming another scheduler are left alone (default `default-scheduler`). */
  schedulerName?: string;
  /** Retry of a pod no node fits (default 1 s doubling to 10 s, as kube-scheduler). */
  backoff?: Backoff;
}

export interface SchedulerHandle {
  /** Pod keys waiting to be scheduled (now or after their backoff). */
  readonly queued: number;
  /** Stops the watches, the queue and the worker. Idempotent. */
  close(): Promise<void>;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);
const MAX_BINDINGS_IN_FLIGHT = 32;

/** Whether an update left what scheduling reads unchanged (spec, labels, annotations). */
const sameSpec = (a: Pod, b: Pod): boolean =>
  JSON.stringify([a.spec, a.metadata.labels, a.metadata.annotations]) === JSON.stringify([b.spec, b.metadata.labels, b.metadata.annotations]);

/**
 * The scheduler decides only: for each pending pod, filter then score the nodes (pickNode)
 * and write a Binding. Pods are queued by key; a pod no node fits is told why (PodScheduled=False,
 * reason Unschedulable, kube-scheduler's message) and retried with backoff, and
 * every pending pod is re-queued when a node's fitness changes. Resolves once both caches
 * have their first list.
 */
export async function startScheduler(options: SchedulerOptions): Promise<SchedulerHandle> {
  const { api, clock, signal, schedulerName = 'default-scheduler' } = options;
  const logger = options.logger.child('scheduler');
  const queue = new KeyQueue(clock, options.backoff ?? { minMs: 1_000, maxMs: 10_000 });
  const pods = new Map<string, Pod>();
  const nodes = new Map<string, Node>();
  const placement = new PodPlacement();
  const offers: NodeOffers = new WeakMap();
  /** Bindings written but not yet seen through the watch. */
  const assumed = new Map<string, string>();

  const wants = (pod: Pod): boolean =>
    !pod.spec.nodeName &&
    (pod.spec.schedulerName ?? 'default-scheduler') === schedulerName &&
    !pod.metadata.deletionTimestamp &&
    !TERMINAL.has(pod.status?.phase ?? '');
  const requeuePending = (): void => {
    for (const [key, pod] of pods) if (wants(pod)) queue.add(key);
  };
  /** Pods no node fitted at their last attempt: retried at once when a pod leaves a node (as kube-scheduler on AssignedPodDelete). */
  const unschedulable = new Set<string>();
  const placePod = (key: string, node: string | undefined, pod?: Pod): void => {
    const was = placement.nodeOf(key);
    placement.set(key, node, pod ? podRequests(pod) : undefined);
    if (was !== undefined && placement.nodeOf(key) !== was) for (const waiting of unschedulable) queue.add(waiting);
  };

  const onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const key = objectKey(event.object.metadata);
    if (event.type === 'DELETED') {
      if (pods.get(key)?.metadata.uid === event.object.metadata.uid) {
        pods.delete(key);
        unschedulable.delete(key);
        placePod(key, undefined);
      }
      return;
    }
    const assumedNode = assumed.get(key);
    const pod = assumedNode && !event.object.spec.nodeName ? { ...event.object, spec: { ...event.object.spec, nodeName: assumedNode } } : event.object;
    pods.set(key, pod);
    placePod(key, TERMINAL.has(pod.status?.phase ?? '') ? undefined : pod.spec.nodeName, pod);
    // A change to the status alone (e.g. our own PodScheduled=False) does not change where the
    // pod fits, so it does not cut short the pod's backoff (as kube-scheduler's isPodUpdated).
    if (wants(pod) && !(event.type === 'MODIFIED' && sameSpec(event.old, event.object))) queue.add(key);
  };
  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return;
    const name = event.object.metadata.name!;
    if (event.type === 'DELETED') nodes.delete(name);
    else nodes.set(name, event.object);
    if (event.type !== 'MODIFIED' || fitSignature(event.old) !== fitSignature(event.object)) requeuePending();
  };


  /** Condition messages being written, so a pick made before the watch shows the write does not repeat it. */
  const reporting = new Map<string, string>();
  /** Sets PodScheduled=False/Unschedulable through pods/status, only when the condition changes. */
  const reportUnschedulable = (key: string, pod: Pod, message: string): Promise<void> | undefined => {
    const conditions = pod.status?.conditions ?? [];
    const current = conditions.find((c) => c.type === 'PodScheduled');
    if (current?.status === 'False' && current.reason === 'Unschedulable' && current.message === message) return;
    if (reporting.get(key) === message) return;
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      lastProbeTime: null,
      lastTransitionTime: current?.status === 'False' && current.lastTransitionTime ? current.lastTransitionTime : new Date(clock.now()).toISOString(),
      reason: 'Unschedulable',
      message,
    };
    // A merge patch replaces the whole list, so the other conditions go with it; the
    // resourceVersion makes the apiserver refuse the patch if they changed meanwhile.
    const patch = {
      metadata: { resourceVersion: pod.metadata.resourceVersion },
      status: { conditions: [...conditions.filter((c) => c.type !== 'PodScheduled'), condition] },
    };
    const { namespace = 'default', name = '' } = pod.metadata;
    reporting.set(key, message);
    return (async () => {
      try {
        await api.patch({ resource: 'pods', namespace, name, subresource: 'status' }, patch, 'merge');
      } catch (err) {
        // The next attempt (the pod is in backoff) writes it again if it is still due.
        if (!isKedgeError(err, 'NotFound')) logger.warn('could not set PodScheduled', { pod: key, error: String(err) });
      } finally {
        if (reporting.get(key) === message) reporting.delete(key);
      }
    })();
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
    const pick = pickNode(pod, nodes.values(), placement.usage, offers);
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
    placement.set(key, nodeName, podRequests(pod));
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
    informer<Node>(api, { resource: 'nodes' }, { clock, logger }).subscribe((e) => (onNode(e), nodesSynced(e))),
    informer<Pod>(api, { resource: 'pods' }, { clock, logger }).subscribe((e) => (onPod(e), podsSynced(e))),
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
