import type { Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/log.js';
import { objectKey, type Node, type Pod } from '../../shared/types.js';
import type { ApiClient } from '../apiserver/client.js';
import { informer, type CacheEvent } from '../informer/informer.js';
import { KeyQueue, type Backoff } from '../informer/key-queue.js';
import { fitSignature, pickNode, type NodeOffers } from './pick-node.js';
import { PodPlacement } from './pod-placement.js';

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

/**
 * The scheduler decides only: for each pending pod, filter then score the nodes (pickNode)
 * and write a Binding. Pods are queued by key; a pod no node fits is retried with backoff and
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

  const onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const key = objectKey(event.object.metadata);
    if (event.type === 'DELETED') {
      if (pods.get(key)?.metadata.uid === event.object.metadata.uid) {
        pods.delete(key);
        placement.set(key, undefined);
      }
      return;
    }
    const assumedNode = assumed.get(key);
    const pod = assumedNode && !event.object.spec.nodeName ? { ...event.object, spec: { ...event.object.spec, nodeName: assumedNode } } : event.object;
    pods.set(key, pod);
    placement.set(key, TERMINAL.has(pod.status?.phase ?? '') ? undefined : pod.spec.nodeName);
    if (wants(pod)) queue.add(key);
  };
  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return;
    const name = event.object.metadata.name!;
    if (event.type === 'DELETED') nodes.delete(name);
    else nodes.set(name, event.object);
    if (event.type !== 'MODIFIED' || fitSignature(event.old) !== fitSignature(event.object)) requeuePending();
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
      placement.set(key, undefined);
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
    if (!pod || !wants(pod)) return void queue.forget(key);
    const nodeName = pickNode(pod, nodes.values(), placement.counts, offers);
    if (!nodeName) {
      logger.info('no node fits pod', { pod: key, nodes: nodes.size });
      return void queue.addRateLimited(key);
    }
    // Assume the binding until the watch shows it, so the next pick counts this pod.
    pods.set(key, { ...pod, spec: { ...pod.spec, nodeName } });
    placement.set(key, nodeName);
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
