import type { ControllerRevision, DaemonSet } from '../../../shared/daemonset-types.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type KubeObject, type Node, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { controllerRefOf } from '../controller-ref.js';
import { controllerKeyIn, ObjectCache } from '../object-cache.js';
import { Expectations } from '../replicaset/expectations.js';
import { splitKey } from '../replicaset/controller.js';
import { applyDaemonSetActions } from './apply.js';
import { FailedPodBackoff } from './failed-backoff.js';
import { planDaemonSet } from './plan.js';

/** Expectations older than this are dropped, in case an event was missed (client-go: 5 minutes). */
const EXPECTATIONS_TIMEOUT_S = 300;
/** The failed-pod backoff per node: 1 s doubling to 15 minutes (kube's failedPodsBackoff). */
const FAILED_BACKOFF_S = { initial: 1, max: 900 };

/** One pod on every eligible node for every DaemonSet (kube's DaemonSetsController). */
export function daemonSetController(): Controller {
  return { name: 'daemonset', start: startDaemonSetController };
}

/** Whether a node change can change where daemon pods belong: labels, taints, schedulability or a condition's status (not heartbeats). */
export function nodeChangeMatters(old: Node, cur: Node): boolean {
  const conditions = (n: Node): string => JSON.stringify((n.status?.conditions ?? []).map((c) => [c.type, c.status]));
  return (
    JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {}) ||
    JSON.stringify(old.spec?.taints ?? []) !== JSON.stringify(cur.spec?.taints ?? []) ||
    Boolean(old.spec?.unschedulable) !== Boolean(cur.spec?.unschedulable) ||
    conditions(old) !== conditions(cur)
  );
}

async function startDaemonSetController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('daemonset-controller');
  const daemonSets = new ObjectCache<DaemonSet>();
  const pods = new ObjectCache<Pod>();
  const revisions = new ObjectCache<ControllerRevision>();
  const nodes = new Map<string, Node>();
  const expectations = new Expectations(clock, scaledMs(timing, EXPECTATIONS_TIMEOUT_S));
  const failedBackoff = new FailedPodBackoff(scaledMs(timing, FAILED_BACKOFF_S.initial), scaledMs(timing, FAILED_BACKOFF_S.max));

  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const ds = daemonSets.get(namespace, name);
    if (!ds) {
      failedBackoff.forget(`${key}/`);
      return expectations.forget(key);
    }
    const now = clock.now();
    const failedBackoffMs = (node: string): number | undefined => failedBackoff.remaining(`${key}/${node}`, now);
    const input = { ds, pods: pods.list(namespace), revisions: revisions.list(namespace), nodes: [...nodes.values()], now, timing, failedBackoffMs };
    const actions = planDaemonSet({ ...input, expectationsSatisfied: expectations.satisfied(key) });
    const failedPodDeleted = (node: string): void => failedBackoff.next(`${key}/${node}`, now);
    await applyDaemonSetActions({ api, events, expectations, requeueAfter: (k, ms) => loop.addAfter(k, ms), failedPodDeleted }, ds, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile });
  const add = (key: string | undefined): void => void (key !== undefined && loop.queue.add(key));
  const addAll = (): void => {
    for (const ds of daemonSets.all()) loop.queue.add(objectKey(ds.metadata));
  };

  /** The key of the DaemonSet controlling `obj`, if it is one we know (same uid). */
  const ownerKey = (obj: KubeObject): string | undefined => controllerKeyIn(daemonSets, 'DaemonSet', obj);
  /** An orphan may be adopted by any DaemonSet selecting it. */
  const addSelecting = (obj: KubeObject): void => {
    for (const ds of daemonSets.list(obj.metadata.namespace)) {
      if (selectorMatches(ds.spec.selector, obj.metadata.labels)) loop.queue.add(objectKey(ds.metadata));
    }
  };
  const onOwned = (e: CacheEvent<KubeObject>): void => {
    if (e.type === 'SYNCED') return;
    const key = ownerKey(e.object);
    if (e.type === 'MODIFIED') {
      const oldKey = ownerKey(e.old);
      if (oldKey !== key) add(oldKey);
    }
    if (key) add(key);
    else if (e.type !== 'DELETED' && !controllerRefOf(e.object)) addSelecting(e.object);
  };

  const onPod = (e: CacheEvent<Pod>): void => {
    pods.apply(e);
    if (e.type === 'SYNCED') return;
    const key = ownerKey(e.object);
    if (key && (e.type === 'DELETED' || e.object.metadata.deletionTimestamp)) expectations.deletionObserved(key, e.object.metadata.uid!);
    else if (key && e.type === 'ADDED') expectations.creationObserved(key);
    onOwned(e);
  };
  const onRevision = (e: CacheEvent<ControllerRevision>): void => {
    revisions.apply(e);
    onOwned(e);
  };
  const onDaemonSet = (e: CacheEvent<DaemonSet>): void => {
    daemonSets.apply(e);
    if (e.type === 'SYNCED') return;
    const key = objectKey(e.object.metadata);
    if (e.type === 'DELETED') expectations.forget(key);
    loop.queue.add(key);
  };
  const onNode = (e: CacheEvent<Node>): void => {
    if (e.type === 'SYNCED') return;
    if (e.type === 'DELETED') nodes.delete(e.object.metadata.name!);
    else nodes.set(e.object.metadata.name!, e.object);
    if (e.type !== 'MODIFIED' || nodeChangeMatters(e.old, e.object)) addAll();
  };

  await loop.start([
    source(ctx.informers.of<DaemonSet>({ resource: 'daemonsets', group: 'apps' }), onDaemonSet),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod),
    source(ctx.informers.of<ControllerRevision>({ resource: 'controllerrevisions', group: 'apps' }), onRevision),
    source(ctx.informers.of<Node>({ resource: 'nodes' }), onNode),
  ]);
  return { close: () => loop.close() };
}
