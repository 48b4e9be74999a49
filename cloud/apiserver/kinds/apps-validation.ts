import type { Deployment, IntOrPercent, LabelSelector, PodTemplateSpec, ReplicaSet } from '../../../shared/apps-types.js';
import type { StatusCause } from '../../../shared/errors.js';
import { isEmptySelector, selectorMatches } from '../../../shared/label-selector.js';
import { stableJson } from '../../client/object-meta.js';
import { invalidValue, required } from '../admission/admission.js';
import { validatePodTemplate, validatePodTemplateMeta } from './pod-spec-validation.js';
import type { AdmissionContext } from './registry.js';

/** apps/v1 validation (ValidateDeployment, ValidateReplicaSet): the parts kedge relies on. */

export function validateReplicaSet(rs: ReplicaSet, ctx: AdmissionContext): StatusCause[] {
  return [...validateWorkloadSpec(rs.spec, 'replicaset'), ...immutableSelector(rs, ctx)];
}

export function validateDeployment(d: Deployment, ctx: AdmissionContext): StatusCause[] {
  const spec = d.spec;
  const causes = [...validateWorkloadSpec(spec, 'deployment'), ...immutableSelector(d, ctx)];
  if (!spec || typeof spec !== 'object') return causes;
  causes.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  const deadline = spec.progressDeadlineSeconds;
  if (deadline !== undefined) {
    causes.push(...nonNegative('spec.progressDeadlineSeconds', deadline));
    if (typeof deadline === 'number' && deadline <= (spec.minReadySeconds ?? 0)) {
      causes.push(invalidValue('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
    }
  }
  return [...causes, ...validateStrategy(spec)];
}

export type WorkloadSpec = { replicas?: number; minReadySeconds?: number; selector?: LabelSelector; template?: PodTemplateSpec } | undefined;

export function validateWorkloadSpec(spec: WorkloadSpec, kind: string): StatusCause[] {
  if (!spec || typeof spec !== 'object') return [required('spec')];
  const causes = [...nonNegative('spec.replicas', spec.replicas), ...nonNegative('spec.minReadySeconds', spec.minReadySeconds)];
  const selector = spec.selector;
  if (!selector || typeof selector !== 'object') causes.push(required('spec.selector'));
  else if (isEmptySelector(selector)) causes.push(invalidValue('spec.selector', selector, `empty selector is invalid for ${kind}`));
  else causes.push(...validateExpressions(selector));
  const template = spec.template;
  if (!template || typeof template !== 'object') return [...causes, required('spec.template')];
  const labels = template.metadata?.labels ?? {};
  if (selector && typeof selector === 'object' && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    causes.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  return [...causes, ...validateTemplateSpec(template, kind)];
}

export function validateExpressions(selector: LabelSelector): StatusCause[] {
  const causes: StatusCause[] = [];
  (selector.matchExpressions ?? []).forEach((r, i) => {
    const at = `spec.selector.matchExpressions[${i}]`;
    const needsValues = r.operator === 'In' || r.operator === 'NotIn';
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(r.operator)) {
      causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(r.operator)}: supported values: "In", "NotIn", "Exists", "DoesNotExist"`, field: `${at}.operator` });
    } else if (needsValues && (r.values ?? []).length === 0) {
      causes.push({ ...required(`${at}.values`), message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" });
    } else if (!needsValues && (r.values ?? []).length > 0) {
      causes.push({ reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'", field: `${at}.values` });
    }
  });
  return causes;
}

/** The template (its labels, annotations and pod spec) as kube's ValidatePodTemplateSpec sees it, with field paths under `at`. */
export function templatePodCauses(template: PodTemplateSpec, at = 'spec.template'): StatusCause[] {
  return validatePodTemplate(template, at);
}

/** DaemonSets and StatefulSets refuse a template with activeDeadlineSeconds (their pods run until told to stop). */
export function noActiveDeadline(spec: WorkloadSpec, kind: string): StatusCause[] {
  const deadline = (spec?.template?.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds;
  return deadline == null ? [] : [invalidValue('spec.template.spec.activeDeadlineSeconds', deadline, `activeDeadlineSeconds in ${kind} is not Supported`)];
}

/**
 * The template, validated as kube does, and pods of a workload always restart. kube checks a
 * StatefulSet's template metadata only (ValidatePodTemplateSpecForStatefulSet: its mounts may
 * name claim templates, not volumes); its pods are checked when created.
 */
function validateTemplateSpec(template: PodTemplateSpec, kind: string): StatusCause[] {
  const causes = kind === 'statefulset' ? validatePodTemplateMeta(template, 'spec.template') : templatePodCauses(template);
  const policy = template.spec?.restartPolicy;
  if (policy !== undefined && policy !== 'Always') {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Always"`, field: 'spec.template.spec.restartPolicy' });
  }
  return causes;
}

function validateStrategy(spec: Deployment['spec']): StatusCause[] {
  const strategy = spec.strategy ?? {};
  const type = strategy.type ?? 'RollingUpdate';
  if (type === 'Recreate') {
    return strategy.rollingUpdate ? [{ reason: 'FieldValueForbidden', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'", field: 'spec.strategy.rollingUpdate' }] : [];
  }
  if (type !== 'RollingUpdate') {
    return [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(type)}: supported values: "Recreate", "RollingUpdate"`, field: 'spec.strategy.type' }];
  }
  const { maxSurge, maxUnavailable } = strategy.rollingUpdate ?? {};
  const causes = [...intOrPercent('spec.strategy.rollingUpdate.maxSurge', maxSurge), ...intOrPercent('spec.strategy.rollingUpdate.maxUnavailable', maxUnavailable)];
  if (typeof maxUnavailable === 'string' && parseInt(maxUnavailable, 10) > 100) {
    causes.push(invalidValue('spec.strategy.rollingUpdate.maxUnavailable', maxUnavailable, 'must not be greater than 100%'));
  }
  if (causes.length === 0 && isZero(maxSurge) && isZero(maxUnavailable)) {
    causes.push(invalidValue('spec.strategy.rollingUpdate.maxUnavailable', maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  return causes;
}

export function intOrPercent(field: string, value: IntOrPercent | undefined): StatusCause[] {
  if (value === undefined) return [];
  if (typeof value === 'string') {
    return /^[0-9]+%$/.test(value) ? [] : [invalidValue(field, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  }
  return nonNegative(field, value);
}

export const isZero = (v: IntOrPercent | undefined): boolean => v === 0 || v === '0%';

export function nonNegative(field: string, value: unknown): StatusCause[] {
  if (value === undefined) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) return [invalidValue(field, value, 'must be an integer')];
  return value < 0 ? [invalidValue(field, value, 'must be greater than or equal to 0')] : [];
}

type WithSelector = { spec?: { selector?: LabelSelector } };

export function immutableSelector(obj: WithSelector, ctx: AdmissionContext): StatusCause[] {
  if (ctx.operation !== 'update' || !ctx.old) return [];
  const before = (ctx.old as WithSelector).spec?.selector;
  const after = obj.spec?.selector;
  return stableJson(before) === stableJson(after) ? [] : [invalidValue('spec.selector', after, 'field is immutable')];
}
