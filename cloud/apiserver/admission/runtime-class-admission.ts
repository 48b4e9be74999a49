import type { RuntimeClass } from '../../../shared/config-types.js';
import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject, Pod, Toleration } from '../../../shared/types.js';
import { stableJson } from '../../client/object-meta.js';
import { runtimeClassResource } from '../kinds/node-resources.js';
import type { LookupContext } from '../kinds/registry.js';

/**
 * kube's RuntimeClass admission plugin, on pod create: a pod naming a RuntimeClass that does
 * not exist is refused (403), and the class's overhead and scheduling (nodeSelector,
 * tolerations) are copied into the pod. Pods without runtimeClassName pass untouched, unless
 * they set an overhead no class defines.
 */
export async function admitRuntimeClass(obj: KubeObject, ctx: LookupContext): Promise<void> {
  const pod = obj as Pod;
  const spec = pod.spec as Pod['spec'] | undefined;
  if (!spec || typeof spec !== 'object') return;
  const className = spec.runtimeClassName;
  // A name that is not a string is validation's to refuse, not this plugin's.
  const rc = typeof className === 'string' && className !== '' ? await ctx.lookup(runtimeClassResource, undefined, className) : undefined;
  if (typeof className === 'string' && className !== '' && !rc) throw podForbidden(pod, `pod rejected: RuntimeClass ${JSON.stringify(className)} not found`);
  setOverhead(pod, rc as RuntimeClass | undefined);
  setScheduling(pod, rc as RuntimeClass | undefined);
}

function setOverhead(pod: Pod, rc: RuntimeClass | undefined): void {
  const podOverhead = pod.spec.overhead as Record<string, string> | undefined;
  const classOverhead = rc?.overhead?.podFixed;
  if (!classOverhead) {
    if (podOverhead !== undefined && podOverhead !== null) throw podForbidden(pod, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    return;
  }
  if (podOverhead && Object.keys(podOverhead).length > 0 && stableJson(podOverhead) !== stableJson(classOverhead)) {
    throw podForbidden(pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  }
  pod.spec.overhead = { ...classOverhead };
}

function setScheduling(pod: Pod, rc: RuntimeClass | undefined): void {
  const scheduling = rc?.scheduling;
  if (!scheduling) return;
  const wanted = Object.entries(scheduling.nodeSelector ?? {});
  if (wanted.length > 0) {
    const nodeSelector = { ...pod.spec.nodeSelector };
    for (const [key, value] of wanted) {
      const podValue = nodeSelector[key];
      if (podValue !== undefined && podValue !== value) {
        throw podForbidden(pod, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`);
      }
      nodeSelector[key] = value;
    }
    pod.spec.nodeSelector = nodeSelector;
  }
  if (scheduling.tolerations?.length) pod.spec.tolerations = mergeTolerations(pod.spec.tolerations ?? [], scheduling.tolerations);
}

/** The pod's tolerations plus the class's that it does not already have. */
function mergeTolerations(own: Toleration[], extra: Toleration[]): Toleration[] {
  const seen = new Set(own.map((t) => stableJson(t)));
  return [...own, ...extra.filter((t) => !seen.has(stableJson(t)))];
}

/** 403 as admission.NewForbidden words it: `pods "<name>" is forbidden: <why>`. */
function podForbidden(pod: Pod, why: string): KedgeError {
  const name = pod.metadata.name ?? '';
  return new KedgeError('Forbidden', `pods ${JSON.stringify(name)} is forbidden: ${why}`, { details: { name, group: '', kind: 'pods' } });
}
