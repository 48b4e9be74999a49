import { CONTROLLER_REVISION_HASH_LABEL, POD_TEMPLATE_GENERATION_LABEL, TEMPLATE_GENERATION_ANNOTATION, type DaemonSet } from '../../../shared/daemonset-types.js';
import type { Pod } from '../../../shared/types.js';
import type { NodeAffinity, NodeSelectorTerm } from '../../scheduler/node-affinity.js';
import { controllerRefTo } from '../controller-ref.js';
import { daemonTolerations } from './node-fit.js';

/** The pods a DaemonSet creates (util.CreatePodTemplate + ReplaceDaemonSetPodNodeNameNodeAffinity). Pure. */

/** The DaemonSet's template generation (the annotation the apiserver keeps), if it has one. */
export function templateGeneration(ds: DaemonSet): string | undefined {
  return ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
}

/** util.IsPodUpdated: the pod carries the current revision hash, or the current template generation. */
export function isPodUpdated(pod: Pod, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return (hash !== '' && labels[CONTROLLER_REVISION_HASH_LABEL] === hash) || (generation !== undefined && labels[POD_TEMPLATE_GENERATION_LABEL] === generation);
}

/**
 * The daemon pod for `node`: the template with the daemon tolerations, the revision labels, and
 * a required node affinity `matchFields metadata.name In [node]` in place of the template's
 * required terms (the controller has checked those), which the scheduler binds it by.
 */
export function daemonPod(ds: DaemonSet, node: string, hash: string): Pod {
  const template = ds.spec.template;
  const meta = template.metadata ?? {};
  const spec = structuredClone(template.spec);
  spec.tolerations = daemonTolerations(spec);
  spec.affinity = pinnedAffinity(spec.affinity as { nodeAffinity?: NodeAffinity } | undefined, node);
  const generation = templateGeneration(ds);
  const labels: Record<string, string> = { ...meta.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash };
  if (generation !== undefined) labels[POD_TEMPLATE_GENERATION_LABEL] = generation;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: `${ds.metadata.name}-`, namespace: ds.metadata.namespace, labels, ownerReferences: [controllerRefTo(ds, 'apps/v1', 'DaemonSet')] },
    spec,
  };
  if (meta.annotations) pod.metadata.annotations = { ...meta.annotations };
  if (meta.finalizers) pod.metadata.finalizers = [...meta.finalizers];
  return pod;
}

function pinnedAffinity(affinity: { nodeAffinity?: NodeAffinity } | undefined, node: string): { nodeAffinity: NodeAffinity } {
  const terms: NodeSelectorTerm[] = [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }];
  const nodeAffinity = { ...affinity?.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } };
  return { ...affinity, nodeAffinity };
}
