import type { DaemonSet } from '../../../shared/daemonset-types.js';
import type { Node, Pod, PodSpec, Taint, Toleration } from '../../../shared/types.js';
import { matchesTerm, nodeAffinityOf, type NodeAffinity } from '../../scheduler/node-affinity.js';
import { toleratesTaint } from '../node-lifecycle/taints.js';

/**
 * Which nodes a DaemonSet runs on (pkg/controller/daemon: NodeShouldRunDaemonPod and
 * util.AddOrUpdateDaemonPodTolerations). Pure.
 */

const exists = (key: string, effect: Toleration['effect']): Toleration => ({ key, operator: 'Exists', effect });

/** The tolerations every daemon pod gets: none has tolerationSeconds, so an unreachable node keeps its pod. */
export function daemonTolerations(spec: PodSpec): Toleration[] {
  const added = [
    exists('node.kubernetes.io/not-ready', 'NoExecute'),
    exists('node.kubernetes.io/unreachable', 'NoExecute'),
    exists('node.kubernetes.io/disk-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/memory-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/pid-pressure', 'NoSchedule'),
    exists('node.kubernetes.io/unschedulable', 'NoSchedule'),
  ];
  if (spec.hostNetwork === true) added.push(exists('node.kubernetes.io/network-unavailable', 'NoSchedule'));
  return added.reduce(addOrUpdate, [...(spec.tolerations ?? [])]);
}

/** AddOrUpdateTolerationInPodSpec: a toleration with the same key, operator, value and effect is replaced; else appended. */
function addOrUpdate(tolerations: Toleration[], toleration: Toleration): Toleration[] {
  const same = (t: Toleration): boolean =>
    (t.key ?? '') === toleration.key && (t.operator ?? 'Equal') === toleration.operator && (t.value ?? '') === '' && t.effect === toleration.effect;
  const at = tolerations.findIndex(same);
  if (at < 0) return [...tolerations, toleration];
  return tolerations.map((t, i) => (i === at ? toleration : t));
}

export interface NodeVerdict {
  /** A daemon pod should be created here if none runs. */
  shouldRun: boolean;
  /** A daemon pod already here may stay (its NoExecute taints are tolerated). */
  shouldContinueRunning: boolean;
}

/** nodeShouldRunDaemonPod: the template's nodeName, nodeSelector and required node affinity, and the node's taints against the daemon tolerations. */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): NodeVerdict {
  const spec = ds.spec.template.spec;
  const name = node.metadata.name ?? '';
  const no = { shouldRun: false, shouldContinueRunning: false };
  if (spec.nodeName && spec.nodeName !== name) return no;
  if (!fitsAffinity(spec, node)) return no;
  const tolerations = daemonTolerations(spec);
  const untolerated = (taint: Taint): boolean => !tolerations.some((t) => toleratesTaint(t, taint));
  const taints = node.spec?.taints ?? [];
  if (!taints.some((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && untolerated(t))) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: !taints.some((t) => t.effect === 'NoExecute' && untolerated(t)) };
}

function fitsAffinity(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const terms = (spec.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((term) => matchesTerm(term, labels, { 'metadata.name': node.metadata.name ?? '' }));
}

/** util.GetTargetNodeName: the pod's nodeName, or the one node its `matchFields metadata.name In [x]` affinity pins it to. */
export function targetNodeOf(pod: Pod): string | undefined {
  if (pod.spec.nodeName) return pod.spec.nodeName;
  for (const term of nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) return field.values[0];
    }
  }
  return undefined;
}
