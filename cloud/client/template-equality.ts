import { POD_TEMPLATE_HASH_LABEL, type PodTemplateSpec } from '../../shared/apps-types.js';
import { defaultPodTemplate } from './apps-defaults.js';
import { stableJson, withoutEmpty } from './object-meta.js';

/** When two pod templates are the same, as workload controllers and the apiserver compare them. */

/**
 * The template with the apiserver's defaults, without the hash label, and without null or
 * empty values (Go omits them: `kubectl rollout undo` sends `creationTimestamp: null`, a
 * stored template has none): what "same template" compares and the hash covers.
 */
export function normalizedTemplate(template: PodTemplateSpec): PodTemplateSpec {
  const copy = structuredClone(template);
  defaultPodTemplate(copy);
  const labels = copy.metadata?.labels;
  if (labels) delete labels[POD_TEMPLATE_HASH_LABEL];
  return (withoutEmpty(copy) ?? {}) as PodTemplateSpec;
}

export function sameTemplate(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  return stableJson(normalizedTemplate(a)) === stableJson(normalizedTemplate(b));
}
