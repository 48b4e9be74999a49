import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { STORAGE_GROUP, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../shared/storage-types.js';
import type { Node, Pod } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';
import { source, subscribeSources } from '../controllers/controller-loop.js';
import type { EventRecorder } from '../controllers/events.js';
import type { KeyQueue, Backoff } from '../informer/key-queue.js';
import { SharedInformers, type Informers } from '../informer/shared-informers.js';
import { UNSCHEDULABLE_BACKOFF } from './plan.js';
import { SchedulingLoop } from './scheduling-loop.js';
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
  /** Where a Warning FailedScheduling Event goes when no node fits a pod, and a Normal Scheduled one when a pod is bound (none if absent). */
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
  const reportUnschedulable = unschedulableReporter({ api, clock, logger, events: options.events });
  const loop = new SchedulingLoop({ api, clock, logger, schedulerName, backoff: options.backoff ?? UNSCHEDULABLE_BACKOFF, reportUnschedulable, events: options.events });
  const stop = new AbortController();
  const worker = runWorker(loop.queue, (key) => loop.scheduleOne(key), stop.signal);
  const sources = subscribeSources([
    source(informers.of<Node>({ resource: 'nodes' }), loop.onNode),
    source(informers.of<PersistentVolumeClaim>({ resource: 'persistentvolumeclaims' }), loop.onClaim),
    source(informers.of<PersistentVolume>({ resource: 'persistentvolumes' }), loop.onVolume),
    source(informers.of<StorageClass>({ resource: 'storageclasses', group: STORAGE_GROUP }), loop.onClass),
    source(informers.of<Pod>({ resource: 'pods' }), loop.onPod),
  ]);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      sources.unsubscribe();
      stop.abort();
      loop.queue.close();
      await worker;
    })());
  const onAbort = (): void => void close();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) await close();

  await sources.synced;
  return { get queued() { return loop.queue.length; }, close };
}

/** Takes keys one at a time while up to MAX_BINDINGS_IN_FLIGHT writes run; resolves when the queue closes and they are done. */
async function runWorker(queue: KeyQueue, scheduleOne: (key: string) => Promise<void> | undefined, signal: AbortSignal): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  for (let key = await queue.take(signal); key !== undefined; key = await queue.take(signal)) {
    const write = scheduleOne(key);
    if (!write) continue;
    inFlight.add(write);
    void write.finally(() => inFlight.delete(write));
    if (inFlight.size >= MAX_BINDINGS_IN_FLIGHT) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
}
