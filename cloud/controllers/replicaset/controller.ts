import type { ReplicaSet } from '../../../shared/apps-types.js';
import { selectorMatches } from '../../../shared/label-selector.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type Node, type Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { applyReplicaSetActions } from './apply.js';
import { controllerRefOf } from '../controller-ref.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { Expectations } from './expectations.js';
import { controllerKeyIn, ObjectCache } from '../object-cache.js';
import { planReplicaSet } from './plan.js';

export interface ReplicaSetControllerOptions {
  /** ReplicaSets reconciled at once (default 4). */
  concurrency?: number;
}

/** Expectations older than this are dropped, in case an event was missed (client-go: 5 minutes). */
const EXPECTATIONS_TIMEOUT_S = 300;

/** Keeps spec.replicas pods running for every ReplicaSet (kube's ReplicaSetController). */
export function replicaSetController(options: ReplicaSetControllerOptions = {}): Controller {
  return { name: 'replicaset', start: (ctx) => startReplicaSetController(ctx, options) };
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

async function startReplicaSetController(ctx: ControllerContext, options: ReplicaSetControllerOptions): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('replicaset-controller');
  const replicaSets = new ObjectCache<ReplicaSet>();
  const pods = new ObjectCache<Pod>();
  const nodes = new Map<string, Node>();
  const expectations = new Expectations(clock, scaledMs(timing, EXPECTATIONS_TIMEOUT_S));

  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const rs = replicaSets.get(namespace, name);
    if (!rs) return expectations.forget(key);
    const expectationsSatisfied = expectations.satisfied(key);
    const actions = planReplicaSet({ rs, pods: pods.list(namespace), nodes, expectationsSatisfied, now: clock.now(), timing });
    await applyReplicaSetActions({ api, events, logger, expectations, requeueAfter: (k, ms) => loop.addAfter(k, ms) }, rs, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile, concurrency: options.concurrency });
  const add = (key: string | undefined): void => void (key !== undefined && loop.queue.add(key));

  /** The key of the ReplicaSet controlling `pod`, if it is one we know (same uid). */
  const ownerKey = (pod: Pod): string | undefined => controllerKeyIn(replicaSets, 'ReplicaSet', pod);
  /** An orphan may be adopted by any ReplicaSet selecting it. */
  const addSelecting = (pod: Pod): void => {
    for (const rs of replicaSets.list(pod.metadata.namespace)) {
      if (selectorMatches(rs.spec.selector, pod.metadata.labels)) loop.queue.add(objectKey(rs.metadata));
    }
  };

  const onPod = (e: CacheEvent<Pod>): void => {
    pods.apply(e);
    if (e.type === 'SYNCED') return;
    const pod = e.object;
    const key = ownerKey(pod);
    const uid = pod.metadata.uid!;
    if (e.type === 'DELETED' || pod.metadata.deletionTimestamp) {
      if (key) expectations.deletionObserved(key, uid);
      if (e.type === 'MODIFIED') add(ownerKey(e.old));
      return add(key);
    }
    if (e.type === 'ADDED') {
      if (key) expectations.creationObserved(key);
      return key ? add(key) : addSelecting(pod);
    }
    const oldKey = ownerKey(e.old);
    if (oldKey !== key) add(oldKey);
    if (key) return add(key);
    const relabeled = JSON.stringify(e.old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
    if (relabeled || controllerRefOf(e.old) !== undefined) addSelecting(pod);
  };
  const onReplicaSet = (e: CacheEvent<ReplicaSet>): void => {
    replicaSets.apply(e);
    if (e.type === 'SYNCED') return;
    const key = objectKey(e.object.metadata);
    if (e.type === 'DELETED') expectations.forget(key);
    loop.queue.add(key);
  };
  const onNode = (e: CacheEvent<Node>): void => {
    if (e.type === 'DELETED') nodes.delete(e.object.metadata.name!);
    else if (e.type !== 'SYNCED') nodes.set(e.object.metadata.name!, e.object);
  };

  await loop.start([
    source(ctx.informers.of<ReplicaSet>({ resource: 'replicasets', group: 'apps' }), onReplicaSet),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod),
    source(ctx.informers.of<Node>({ resource: 'nodes' }), onNode),
  ]);
  return { close: () => loop.close() };
}
