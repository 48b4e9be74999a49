import type { Node, Pod } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { leaseHeartbeat, readyConditionHeartbeat, type HeartbeatSource } from './heartbeat.js';
import { NodeMemories } from './memory.js';
import { PodsByNode } from './pod-index.js';
import { nodeReconciler, type NodeLifecycleView } from './reconcile.js';
import { sightOnRelist } from './sight.js';
import { replansOnPodChange } from './taint-manager.js';

export interface NodeLifecycleOptions {
  /** How nodes prove they are alive (default: the Ready condition's lastHeartbeatTime and the node's Lease, as kube's). */
  heartbeats?: HeartbeatSource[];
  /** Nodes reconciled at once (default 4). */
  concurrency?: number;
}

/**
 * Kubernetes' node lifecycle controller with its NoExecute taint manager, plus KubeEdge's
 * autonomy. Node names are the queue keys: every monitor period all of them, a node whenever
 * it or (when troubled) one of its pods changes, and a node at its next eviction deadline.
 * Each pass plans purely and applies (reconcile.ts); the watches here only gather its inputs.
 */
async function startNodeLifecycle(ctx: ControllerContext, options: NodeLifecycleOptions): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('node-lifecycle');
  const heartbeats = options.heartbeats ?? [readyConditionHeartbeat, leaseHeartbeat()];
  const nodes = new Map<string, Node>();
  const view: NodeLifecycleView = { nodes, pods: new PodsByNode(), memories: new NodeMemories(clock), sight: 'seeing' };
  const reconcile = nodeReconciler({ api, events, logger, clock, timing, heartbeats, view, wake: (name) => loop.queue.add(name) });
  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: Math.max(100, timing.nodeMonitorPeriodMs) }, concurrency: options.concurrency });
  const queueAll = (): void => {
    for (const name of nodes.keys()) loop.queue.add(name);
  };

  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return seeAgainIfBlind(view, clock.now(), queueAll);
    const name = event.object.metadata.name!;
    if (event.type !== 'DELETED') nodes.set(name, event.object);
    else if (nodes.get(name)?.metadata.uid === event.object.metadata.uid) nodes.delete(name);
    loop.queue.add(name);
  };
  const onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const changed = event.type === 'DELETED' ? [view.pods.delete(event.object)] : view.pods.set(event.object);
    for (const name of changed) if (name !== undefined && replansOnPodChange(nodes.get(name))) loop.queue.add(name);
  };

  const started = loop.start([source(ctx.informers.of<Node>({ resource: 'nodes' }), onNode), source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod)]);
  const stopHeartbeats = heartbeats.map((s) => s.start?.(ctx));
  await started;

  const stopMonitor = clock.setRepeating(timing.nodeMonitorPeriodMs, queueAll);
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        view.memories.close();
        stopMonitor();
        for (const stop of stopHeartbeats) stop?.();
        await loop.close();
        view.memories.forgetAll();
      })()),
  };
}

/** On a fresh list of the nodes: a blind controller sees again, counts silence afresh and plans every node. */
function seeAgainIfBlind(view: NodeLifecycleView, now: number, queueAll: () => void): void {
  const relist = sightOnRelist(view.sight);
  view.sight = relist.sight;
  if (!relist.recount) return;
  view.memories.recountSilence(now);
  queueAll();
}

export function createNodeLifecycleController(options: NodeLifecycleOptions = {}): Controller {
  return { name: 'node-lifecycle', start: (ctx) => startNodeLifecycle(ctx, options) };
}

/** The node lifecycle controller with the default heartbeats (the Ready condition's lastHeartbeatTime, the node's Lease). */
export const nodeLifecycleController: Controller = createNodeLifecycleController();
