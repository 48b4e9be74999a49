import type { Cancel } from '../../../shared/clock.js';
import { isKedgeError } from '../../../shared/errors.js';
import { objectKey, type Node, type Pod, type Taint } from '../../../shared/types.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { applyEvictions, applyNodeHealth, applyPodsNotReady, type ApplyDeps } from './apply.js';
import { planEvictions, type EvictionPlan } from './evictions.js';
import { heartbeatOf, observeProbe, readyConditionHeartbeat, type HeartbeatSource, type NodeProbe } from './heartbeat.js';
import { planNodeHealth } from './node-health.js';
import { PodsByNode } from './pod-index.js';
import { planPodsNotReady } from './pods-not-ready.js';

export interface NodeLifecycleOptions {
  /** How nodes prove they are alive (default: the Ready condition's lastHeartbeatTime). */
  heartbeats?: HeartbeatSource[];
  /** Nodes reconciled at once (default 4). */
  concurrency?: number;
}

/** What the controller remembers per node between passes. */
interface NodeMemory {
  probe?: NodeProbe;
  /** Wakes the node's key at its next eviction deadline. */
  wake?: Cancel;
  /** Pods with an eviction deadline after the last pass, by "namespace/name". */
  scheduled: Map<string, Pod>;
  /** When each NoExecute taint without timeAdded was first seen ("key:effect" → ms). */
  taintSeen: Map<string, number>;
  /** The invalid autonomy annotation already warned about. */
  warned?: string;
}

const taintId = (t: Taint): string => `${t.key}:${t.effect}`;

/** A node worth re-planning when one of its pods changes: pods are marked or evicted only there. */
function troubled(node: Node | undefined): boolean {
  if (!node) return false;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return (ready !== undefined && ready !== 'True') || (node.spec?.taints ?? []).some((t) => t.effect === 'NoExecute');
}

/**
 * Kubernetes' node lifecycle controller with its NoExecute taint manager, plus KubeEdge's
 * autonomy. Node names are the queue keys: every monitor period all of them, a node whenever
 * it or (when troubled) one of its pods changes, and a node at its next eviction deadline.
 * Each pass plans health, pods not ready and evictions purely, then applies them.
 */
async function startNodeLifecycle(ctx: ControllerContext, options: NodeLifecycleOptions): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('node-lifecycle');
  const deps: ApplyDeps = { api, events, logger };
  const sources = options.heartbeats ?? [readyConditionHeartbeat];
  const nodes = new Map<string, Node>();
  const pods = new PodsByNode();
  const memory = new Map<string, NodeMemory>();
  const memoryOf = (name: string): NodeMemory => {
    let m = memory.get(name);
    if (!m) memory.set(name, (m = { scheduled: new Map(), taintSeen: new Map() }));
    return m;
  };
  const forget = (name: string): void => {
    memory.get(name)?.wake?.();
    memory.delete(name);
  };

  const rememberTaints = (m: NodeMemory, node: Node, now: number): void => {
    const present = new Set<string>();
    for (const t of node.spec?.taints ?? []) {
      if (t.effect !== 'NoExecute' || t.timeAdded) continue;
      present.add(taintId(t));
      if (!m.taintSeen.has(taintId(t))) m.taintSeen.set(taintId(t), now);
    }
    for (const id of m.taintSeen.keys()) if (!present.has(id)) m.taintSeen.delete(id);
  };
  const noteSchedule = (m: NodeMemory, name: string, plan: EvictionPlan, podsHere: Pod[]): void => {
    for (const [key, pod] of m.scheduled) {
      if (!plan.deadlines.has(key) && pods.has(pod)) events.record(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
    }
    const evicted = new Set(plan.evict);
    m.scheduled = new Map(podsHere.filter((p) => plan.deadlines.has(objectKey(p.metadata)) && !evicted.has(p)).map((p) => [objectKey(p.metadata), p]));
    if (plan.invalidAutonomy !== m.warned && plan.invalidAutonomy !== undefined) {
      logger.warn('ignoring invalid autonomy duration', { node: name, value: plan.invalidAutonomy });
    }
    m.warned = plan.invalidAutonomy;
  };
  let closed = false;
  /** Measured from the clock's now, not the pass's start: the writes in between took time. */
  const wakeAt = (m: NodeMemory, name: string, at: number | undefined): void => {
    m.wake?.();
    m.wake = at === undefined || closed ? undefined : clock.setTimer(Math.max(0, at - clock.now()), () => queue.add(name));
  };

  /**
   * Set when the store was found down: the cached nodes stopped changing because nothing
   * could be written, not because the nodes fell silent. Nothing is judged until the nodes
   * are listed again, and then silence is counted afresh (as a restarted controller-manager would).
   */
  let blind = false;
  const applyOrGoBlind = async <T>(apply: () => Promise<T>): Promise<T> => {
    try {
      return await apply();
    } catch (err) {
      if (isKedgeError(err, 'Unavailable')) blind = true;
      throw err;
    }
  };
  const seeAgain = (): void => {
    blind = false;
    const now = clock.now();
    for (const m of memory.values()) if (m.probe) m.probe = { ...m.probe, probeTime: now };
    for (const name of nodes.keys()) queue.add(name);
  };

  const reconcile = async (name: string): Promise<void> => {
    if (blind) return;
    const node = nodes.get(name);
    if (!node) return forget(name);
    const m = memoryOf(name);
    const now = clock.now();
    m.probe = observeProbe(m.probe, heartbeatOf(sources, node), now);
    const health = planNodeHealth(node, m.probe, now, timing);
    const current = await applyOrGoBlind(() => applyNodeHealth(deps, node, health.actions));
    m.probe = { ...m.probe, lastReady: health.ready };
    const podsHere = pods.on(name);
    await applyPodsNotReady(deps, planPodsNotReady(name, health.ready, podsHere, now));
    rememberTaints(m, current, now);
    const plan = planEvictions(current, podsHere, now, timing, (t) => m.taintSeen.get(taintId(t)));
    noteSchedule(m, name, plan, podsHere);
    await applyEvictions(deps, plan.evict);
    wakeAt(m, name, plan.nextAt);
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: { minMs: 100, maxMs: Math.max(100, timing.nodeMonitorPeriodMs) }, concurrency: options.concurrency });
  const queue = loop.queue;

  const onNode = (event: CacheEvent<Node>): void => {
    if (event.type === 'SYNCED') return blind ? seeAgain() : undefined;
    const name = event.object.metadata.name!;
    if (event.type !== 'DELETED') nodes.set(name, event.object);
    else if (nodes.get(name)?.metadata.uid === event.object.metadata.uid) nodes.delete(name);
    queue.add(name);
  };
  const onPod = (event: CacheEvent<Pod>): void => {
    if (event.type === 'SYNCED') return;
    const changed = event.type === 'DELETED' ? [pods.delete(event.object)] : pods.set(event.object);
    for (const name of changed) if (name !== undefined && troubled(nodes.get(name))) queue.add(name);
  };

  const started = loop.start([source(ctx.informers.of<Node>({ resource: 'nodes' }), onNode), source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod)]);
  const stopSources = sources.map((s) => s.start?.(ctx));
  await started;

  const stopMonitor = clock.setRepeating(timing.nodeMonitorPeriodMs, () => {
    for (const name of nodes.keys()) queue.add(name);
  });
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        closed = true;
        stopMonitor();
        for (const stop of stopSources) stop?.();
        await loop.close();
        for (const name of [...memory.keys()]) forget(name);
      })()),
  };
}

export function createNodeLifecycleController(options: NodeLifecycleOptions = {}): Controller {
  return { name: 'node-lifecycle', start: (ctx) => startNodeLifecycle(ctx, options) };
}

/** The node lifecycle controller with the default heartbeat (the Ready condition's lastHeartbeatTime). */
export const nodeLifecycleController: Controller = createNodeLifecycleController();
