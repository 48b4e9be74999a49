import type { IntOrPercent } from '../../../shared/apps-types.js';
import type { DaemonSet } from '../../../shared/daemonset-types.js';
import type { Node, Pod } from '../../../shared/types.js';
import { isPodAvailable } from '../replicaset/pod-state.js';
import { isPodUpdated, templateGeneration } from './daemon-pod.js';
import type { NodeChanges } from './manage.js';
import { nodeShouldRunDaemonPod } from './node-fit.js';

/**
 * One step of a DaemonSet's RollingUpdate (rollingUpdate in pkg/controller/daemon/update.go).
 * Without surge: delete old pods while at most maxUnavailable nodes lack an available new pod
 * (the manage loop then creates the new one). With surge: create new pods beside old ones on
 * up to maxSurge nodes, and delete each old pod once its new one is available. Pure.
 */

export interface RollingInput {
  ds: DaemonSet;
  nodes: readonly Node[];
  byNode: ReadonlyMap<string, Pod[]>;
  hash: string;
  minReadyMs: number;
  now: number;
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up. */
export function scaled(value: IntOrPercent | undefined, total: number): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  return Math.ceil((parseInt(value, 10) * total) / 100);
}

/** updatedDesiredNodeCounts: maxSurge, maxUnavailable (1 when both would be 0) and the nodes that want a pod. */
export function rollingBudget(ds: DaemonSet, nodes: readonly Node[]): { maxSurge: number; maxUnavailable: number; wanted: Set<string> } {
  const wanted = new Set(nodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).map((n) => n.metadata.name ?? ''));
  const rolling = ds.spec.updateStrategy?.rollingUpdate;
  const maxSurge = scaled(rolling?.maxSurge, wanted.size);
  let maxUnavailable = scaled(rolling?.maxUnavailable, wanted.size);
  if (wanted.size > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable, wanted };
}

/** findUpdatedPodsOnNode: at most one new and one old live pod, or undefined when there are more. */
function newAndOld(pods: readonly Pod[], hash: string, generation: string | undefined): { newPod?: Pod; oldPod?: Pod } | undefined {
  const out: { newPod?: Pod; oldPod?: Pod } = {};
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const slot = isPodUpdated(pod, hash, generation) ? 'newPod' : 'oldPod';
    if (out[slot]) return undefined;
    out[slot] = pod;
  }
  return out;
}

/** Every node with pods, and every node that wants one (with none yet). */
function nodesInPlay(input: RollingInput, wanted: ReadonlySet<string>): Map<string, Pod[]> {
  const all = new Map(input.byNode);
  for (const name of wanted) if (!all.has(name)) all.set(name, []);
  return all;
}

export function rollingUpdate(input: RollingInput): NodeChanges {
  const budget = rollingBudget(input.ds, input.nodes);
  return budget.maxSurge === 0 ? withoutSurge(input, budget.maxUnavailable, budget.wanted) : withSurge(input, budget.maxSurge, budget.wanted);
}

function withoutSurge(input: RollingInput, maxUnavailable: number, wanted: ReadonlySet<string>): NodeChanges {
  const available = (pod: Pod): boolean => isPodAvailable(pod, input.minReadyMs, input.now);
  const generation = templateGeneration(input.ds);
  let unavailable = 0;
  const replace: Pod[] = [];
  const candidates: Pod[] = [];
  for (const pods of sortedByNode(nodesInPlay(input, wanted))) {
    const found = newAndOld(pods, input.hash, generation);
    if (!found || (found.newPod === undefined) === (found.oldPod === undefined)) unavailable++;
    else if (found.newPod) unavailable += available(found.newPod) ? 0 : 1;
    else if (!available(found.oldPod!)) replace.push(found.oldPod!);
    else if (unavailable < maxUnavailable) candidates.push(found.oldPod!);
  }
  const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
  return { create: [], delete: [...replace, ...candidates.slice(0, room)] };
}

function withSurge(input: RollingInput, maxSurge: number, wanted: ReadonlySet<string>): NodeChanges {
  const available = (pod: Pod): boolean => isPodAvailable(pod, input.minReadyMs, input.now);
  const generation = templateGeneration(input.ds);
  const out: NodeChanges = { create: [], delete: [] };
  const shouldNotRun: Pod[] = [];
  const candidates: string[] = [];
  let surging = 0;
  let numAvailable = 0;
  for (const [node, pods] of [...nodesInPlay(input, wanted)].sort(([a], [b]) => a.localeCompare(b))) {
    const found = newAndOld(pods, input.hash, generation);
    if (!found) {
      surging++;
      continue;
    }
    const { newPod, oldPod } = found;
    const counted = oldPod ?? newPod;
    if (counted && available(counted)) numAvailable++;
    if (!oldPod) continue;
    if (newPod) {
      if (available(newPod)) out.delete.push(oldPod);
      else surging++;
    } else if (!available(oldPod)) {
      if (wanted.has(node)) out.create.push(node);
      else out.delete.push(oldPod);
    } else if (!wanted.has(node)) shouldNotRun.push(oldPod);
    else if (surging < maxSurge) candidates.push(node);
  }
  // Pods on nodes that no longer want one go only while enough others are available.
  out.delete.push(...shouldNotRun.slice(0, Math.max(0, numAvailable - wanted.size)));
  out.create.push(...candidates.slice(0, Math.max(0, maxSurge - surging)));
  return out;
}

const sortedByNode = (byNode: ReadonlyMap<string, Pod[]>): Pod[][] => [...byNode].sort(([a], [b]) => a.localeCompare(b)).map(([, pods]) => pods);
