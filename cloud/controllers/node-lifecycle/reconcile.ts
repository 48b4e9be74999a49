import type { Clock } from '../../../shared/clock.js';
import type { Timing } from '../../../shared/timing.js';
import type { Node } from '../../../shared/types.js';
import { applyNodeHealth, applyPodsNotReady, applyTaintManager, type ApplyDeps } from './apply.js';
import { heartbeatOf, observeProbe, type HeartbeatSource } from './heartbeat.js';
import type { NodeMemories } from './memory.js';
import { planNodeHealth, type NodeHealthAction } from './node-health.js';
import type { PodsByNode } from './pod-index.js';
import { planPodsNotReady } from './pods-not-ready.js';
import { sightAfterFailure, type Sight } from './sight.js';
import { planTaintManager } from './taint-manager.js';

/** What the controller sees: the informers' nodes and pods, its memory of each node, and whether it is blind. */
export interface NodeLifecycleView {
  readonly nodes: ReadonlyMap<string, Node>;
  readonly pods: PodsByNode;
  readonly memories: NodeMemories;
  sight: Sight;
}

export interface NodePassDeps extends ApplyDeps {
  clock: Clock;
  timing: Timing;
  heartbeats: readonly HeartbeatSource[];
  view: NodeLifecycleView;
  /** Queues the node's key. */
  wake(name: string): void;
}

/**
 * One pass over a node, in three planned steps, each applied before the next is planned (each
 * reads what the one before wrote): its health (conditions, readiness taints, Events), its pods
 * not ready, then the taint manager's evictions.
 */
export function nodeReconciler(deps: NodePassDeps): (name: string) => Promise<void> {
  const { clock, timing, view } = deps;
  return async (name) => {
    if (view.sight === 'blind') return;
    const node = view.nodes.get(name);
    if (!node) return view.memories.forget(name);
    const m = view.memories.of(name);
    const now = clock.now();
    m.probe = observeProbe(m.probe, heartbeatOf(deps.heartbeats, node), now);
    const health = planNodeHealth(node, m.probe, now, timing);
    const current = await applyHealthOrGoBlind(deps, node, health.actions);
    m.probe = { ...m.probe, lastReady: health.ready };
    const podsHere = view.pods.on(name);
    await applyPodsNotReady(deps, planPodsNotReady(name, health.ready, podsHere, now));
    const evictions = planTaintManager({ memory: m, node: current, pods: podsHere, indexed: (pod) => view.pods.has(pod), now, timing });
    Object.assign(m, evictions.memory);
    await applyTaintManager({ ...deps, wakeAt: (at) => view.memories.wakeAt(name, at, () => deps.wake(name)) }, evictions.actions);
  };
}

async function applyHealthOrGoBlind(deps: NodePassDeps, node: Node, actions: readonly NodeHealthAction[]): Promise<Node> {
  try {
    return await applyNodeHealth(deps, node, actions);
  } catch (err) {
    deps.view.sight = sightAfterFailure(deps.view.sight, err);
    throw err;
  }
}
