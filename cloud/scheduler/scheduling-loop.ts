import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { objectKey, type Node, type Pod } from '../../shared/types.js';
import type { ApiClient } from '../client/client.js';
import type { EventRecorder } from '../controllers/events.js';
import type { CacheEvent } from '../informer/informer.js';
import { KeyQueue, type Backoff } from '../informer/key-queue.js';
import { afterBindingFailure, pendingKeys, planNodeEvent, planPodEvent, planSchedule } from './plan.js';
import { SchedulerCache } from './scheduler-cache.js';
import type { ReportUnschedulable } from './unschedulable.js';
import { VolumeCache } from './volume-cache.js';
import { ANN_SELECTED_NODE, podClaimNames, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../shared/storage-types.js';

export interface SchedulingLoopDeps {
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  schedulerName: string;
  backoff: Backoff;
  reportUnschedulable: ReportUnschedulable;
  /** Where a Normal Scheduled Event goes for each pod bound (none if absent). */
  events?: EventRecorder;
}

/**
 * The scheduler's thin apply: watch events and picks are planned (plan.ts) and applied here to
 * the cache and the queue of pod keys; a binding is written in the background (as kube-scheduler
 * binds asynchronously), so `scheduleOne` returns the write still in flight, if any.
 */
export class SchedulingLoop {
  readonly queue: KeyQueue;
  private readonly cache = new SchedulerCache();
  private readonly volumes = new VolumeCache();
  /** Where the next pick starts filtering (kube-scheduler's nextStartNodeIndex). */
  private nextStart = 0;
  private requeueDue = false;
  private requeueAll = false;

  constructor(private readonly deps: SchedulingLoopDeps) {
    this.queue = new KeyQueue(deps.clock, deps.backoff);
  }

  readonly onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const key = objectKey(event.object.metadata);
    const { cache, deps } = this;
    const effect = planPodEvent(event, { known: cache.pod(key), assumedNode: cache.assumedNode(key), schedulerName: deps.schedulerName });
    if (effect.type === 'ignore') return;
    const madeRoom = effect.type === 'remove' ? cache.removePod(key, event.object.metadata.uid) : cache.storePod(key, effect.pod, effect.node);
    if (madeRoom) this.retryUnschedulable();
    if (effect.type === 'store' && effect.queue) this.queue.add(key);
  };

  readonly onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return;
    const name = event.object.metadata.name!;
    const effect = planNodeEvent(event, this.cache.nodes.get(name) !== undefined);
    if (effect === 'ignore') return;
    if (effect === 'remove') this.cache.removeNode(name);
    else this.cache.storeNode(event.object);
    this.requeuePending();
  };

  /** A claim, volume or class changed: pods waiting on volumes may go now (or learn why not). */
  readonly onClaim = (event: CacheEvent<PersistentVolumeClaim>): void => void (this.volumes.onClaim(event) && this.requeuePending(true));
  readonly onVolume = (event: CacheEvent<PersistentVolume>): void => void (this.volumes.onVolume(event) && this.requeuePending(true));
  readonly onClass = (event: CacheEvent<StorageClass>): void => void (this.volumes.onClass(event) && this.requeuePending(true));

  /** Decides one pod now; returns the write it started, if any. */
  scheduleOne(key: string): Promise<void> | undefined {
    const { cache, deps } = this;
    const pod = cache.pod(key);
    const plan = planSchedule({ pod, schedulerName: deps.schedulerName, nodes: cache.nodes.all, start: this.nextStart, requestsOf: (p) => cache.requestsOf(p), volumes: this.volumes });
    this.nextStart = plan.nextStart;
    const { action } = plan;
    if (action.type === 'drop' || action.type === 'awaitVolumes' || !pod) {
      cache.unschedulable.delete(key);
      return void this.queue.forget(key);
    }
    if (action.type === 'selectNode') {
      cache.unschedulable.delete(key);
      return this.selectNode(key, action.node, action.claims);
    }
    if (action.type === 'unschedulable') {
      deps.logger.info('no node fits pod', { pod: key, message: action.message });
      cache.unschedulable.add(key);
      this.queue.addRateLimited(key);
      return deps.reportUnschedulable(key, pod, action.message);
    }
    cache.assume(key, pod, action.node, action.requests);
    return this.bind(key, pod, action.node);
  }

  private async bind(key: string, pod: Pod, nodeName: string): Promise<void> {
    const { namespace = 'default', name = '' } = pod.metadata;
    try {
      await this.deps.api.create(
        { resource: 'pods', namespace, name, subresource: 'binding' },
        { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
      );
      this.cache.bound(key);
      this.queue.forget(key);
      this.deps.logger.info('bound pod', { pod: key, node: nodeName });
      this.deps.events?.record(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${nodeName}`);
    } catch (err) {
      if (this.cache.unassume(key, pod, nodeName)) this.retryUnschedulable();
      if (afterBindingFailure(err) === 'forget') return this.queue.forget(key);
      this.deps.logger.warn('binding failed', { pod: key, node: nodeName, error: String(err) });
      this.queue.addRateLimited(key);
    }
  }

  /** VolumeBinding's PreBind, its first half: the claims learn the node; their updates re-queue the pod, which binds once they are bound. */
  private async selectNode(key: string, node: string, claims: readonly PersistentVolumeClaim[]): Promise<void> {
    try {
      for (const claim of claims) {
        const { namespace, name, resourceVersion } = claim.metadata;
        const patch = { metadata: { resourceVersion, annotations: { [ANN_SELECTED_NODE]: node } } };
        await this.deps.api.patch({ resource: 'persistentvolumeclaims', namespace, name }, patch, 'merge');
      }
      this.queue.forget(key);
      this.deps.logger.info('selected a node for the claims of a pod', { pod: key, node, claims: claims.map((c) => c.metadata.name) });
    } catch (err) {
      this.deps.logger.warn('could not select a node for claims', { pod: key, node, error: String(err) });
      this.queue.addRateLimited(key);
    }
  }

  private retryUnschedulable(): void {
    for (const key of this.cache.unschedulable) this.queue.add(key);
  }

  /**
   * Re-queues every pending pod (only those that name claims, for a change of claims, volumes
   * or classes), once per turn however many objects changed in it (a relist of 1,000 nodes is one walk).
   */
  private requeuePending(claimUsersOnly = false): void {
    this.requeueAll ||= !claimUsersOnly;
    if (this.requeueDue) return;
    this.requeueDue = true;
    queueMicrotask(() => {
      const all = this.requeueAll;
      this.requeueDue = false;
      this.requeueAll = false;
      for (const key of pendingKeys(this.cache.allPods(), this.deps.schedulerName)) if (all || usesClaims(this.cache.pod(key))) this.queue.add(key);
    });
  }
}

const usesClaims = (pod: Pod | undefined): boolean => pod !== undefined && podClaimNames(pod).length > 0;
