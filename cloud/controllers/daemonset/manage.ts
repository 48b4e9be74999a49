import type { DaemonSet } from '../../../shared/daemonset-types.js';
import type { Node, Pod } from '../../../shared/types.js';
import { isPodAvailable, isPodReady } from '../replicaset/pod-state.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../../shared/daemonset-types.js';
import { nodeShouldRunDaemonPod, targetNodeOf } from './node-fit.js';

/** The manage loop of the DaemonSet controller (podsShouldBeOnNode): which nodes need a pod, which pods must go. Pure. */

export interface NodeChanges {
  /** Nodes to create a daemon pod on. */
  create: string[];
  delete: Pod[];
  /** Nodes whose failed pods are deleted now: their backoff grows. */
  failedOn?: string[];
  /** The soonest a node's failed-pod backoff ends, when one holds a deletion back. */
  retryInMs?: number;
}

/** The DaemonSet's pods by the node each runs on or is pinned to; pods with no node are left out. */
export function podsByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = targetNodeOf(pod);
    if (node !== undefined) out.set(node, [...(out.get(node) ?? []), pod]);
  }
  return out;
}

export interface ManageInput {
  ds: DaemonSet;
  nodes: readonly Node[];
  byNode: ReadonlyMap<string, Pod[]>;
  hash: string;
  /** RollingUpdate with maxSurge: an old and a new pod may share a node for a while. */
  allowSurge: boolean;
  minReadyMs: number;
  now: number;
  /** Milliseconds before a failed pod on `node` may be deleted (undefined: now). */
  failedBackoffMs?(node: string): number | undefined;
}

export function manageNodes(input: ManageInput): NodeChanges {
  const out: NodeChanges = { create: [], delete: [], failedOn: [] };
  for (const node of input.nodes) {
    const name = node.metadata.name ?? '';
    const pods = input.byNode.get(name) ?? [];
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, input.ds);
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    if (shouldRun && pods.length === 0) out.create.push(name);
    else if (shouldContinueRunning) {
      out.delete.push(...failedPods(input, name, live, out), ...excessPods(input, live.filter((p) => p.status?.phase !== 'Failed')));
    } else out.delete.push(...live);
  }
  return out;
}

/** The node's failed pods, unless its backoff holds them back (then `out` says when to look again). */
function failedPods(input: ManageInput, node: string, live: readonly Pod[], out: NodeChanges): Pod[] {
  const failed = live.filter((p) => p.status?.phase === 'Failed');
  if (failed.length === 0) return [];
  const wait = input.failedBackoffMs?.(node);
  if (wait === undefined) {
    out.failedOn!.push(node);
    return failed;
  }
  out.retryInMs = Math.min(out.retryInMs ?? wait, wait);
  return [];
}

/** Of the running pods one stays (the oldest), or with surge an old ready pod beside a new one not yet available. */
function excessPods(input: ManageInput, running: readonly Pod[]): Pod[] {
  running = byAge(running);
  if (!input.allowSurge) return running.slice(1);
  const extra: Pod[] = [];
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    const isNew = pod.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL] === input.hash;
    if (isNew && !oldestNew) oldestNew = pod;
    else if (!isNew && !oldestOld) oldestOld = pod;
    else extra.push(pod);
  }
  if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, input.minReadyMs, input.now))) extra.push(oldestOld);
  return extra;
}

/** podByCreationTimestampAndPhase: scheduled before unscheduled, then oldest first, then by name. */
export function byAge(pods: readonly Pod[]): Pod[] {
  const created = (p: Pod): number => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  const unscheduled = (p: Pod): number => (p.spec.nodeName ? 0 : 1);
  return [...pods].sort((a, b) => unscheduled(a) - unscheduled(b) || created(a) - created(b) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}
