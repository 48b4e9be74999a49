import type { StatusCause } from '../../../shared/errors.js';
import type { Container, Pod, PodSpec, Toleration } from '../../../shared/types.js';
import { invalidValue, required } from '../admission/admission.js';
import { podSpecDiff, semanticallyEqual } from './pod-spec-diff.js';

/**
 * ValidatePodUpdate (k8s.io/kubernetes pkg/apis/core/validation), with kube's wording: a pod's
 * spec is fixed once created except its images, a shorter activeDeadlineSeconds, added
 * tolerations (and any existing one's tolerationSeconds), removed schedulingGates (and, while
 * gated, added nodeSelector entries), and a negative terminationGracePeriodSeconds set to 1.
 * spec.nodeName is set through pods/binding only, which does not come here.
 */

const UPDATABLE_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

const MAX_INT32 = 2 ** 31 - 1;
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

const forbidden = (field: string, why: string): StatusCause => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field });

export function validatePodUpdate(pod: Pod, old: Pod): StatusCause[] {
  const causes = mirrorAnnotationCauses(pod, old);
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const was: PodSpec = old.spec ?? { containers: [] };
  for (const key of ['containers', 'initContainers'] as const) {
    const { stop, found } = containerCauses(spec[key] ?? [], was[key] ?? [], `spec.${key}`);
    causes.push(...found);
    if (stop) return causes;
  }
  const deadline = deadlineCauses(spec.activeDeadlineSeconds, was.activeDeadlineSeconds);
  causes.push(...deadline.found);
  if (deadline.stop) return causes;
  causes.push(...onlyAddedTolerations(spec.tolerations ?? [], was.tolerations ?? []));
  causes.push(...onlyDeletedSchedulingGates(gatesOf(spec), gatesOf(was)));
  if (semanticallyEqual(spec, was)) return causes;
  const { munged, found } = mungedSpec(spec, was);
  causes.push(...found);
  if (!semanticallyEqual(munged, was)) {
    causes.push(forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_FIELDS}\n${podSpecDiff(was, munged)}`));
  }
  return causes;
}

/** ValidatePodSpecificAnnotationUpdates: the kubelet's mirror pod annotation is fixed for the pod's life. */
function mirrorAnnotationCauses(pod: Pod, old: Pod): StatusCause[] {
  const [now, before] = [pod.metadata.annotations?.[MIRROR_ANNOTATION], old.metadata.annotations?.[MIRROR_ANNOTATION]];
  const field = `metadata.annotations[${MIRROR_ANNOTATION}]`;
  if (before === undefined && now !== undefined) return [forbidden(field, 'may not add mirror pod annotation')];
  if (before !== undefined && now !== before) return [forbidden(field, 'may not remove or update mirror pod annotation')];
  return [];
}

type Found = { stop: boolean; found: StatusCause[] };

/** ValidateContainerUpdates: the same number of containers, each with an image. */
function containerCauses(next: Container[], old: Container[], at: string): Found {
  if (next.length !== old.length) return { stop: true, found: [forbidden(at, 'pod updates may not add or remove containers')] };
  const found: StatusCause[] = [];
  next.forEach((c, i) => {
    const image = typeof c?.image === 'string' ? c.image : '';
    if (image === '') found.push(required(`${at}[${i}].image`));
    if (image.trim() !== image) found.push(invalidValue(`${at}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { stop: false, found };
}

/** activeDeadlineSeconds may be set where unset, or lowered; never removed. */
function deadlineCauses(next: unknown, old: unknown): Found {
  const field = 'spec.activeDeadlineSeconds';
  if (next === undefined || next === null) {
    return { stop: false, found: old === undefined || old === null ? [] : [invalidValue(field, 'null', 'must not update from a positive integer to nil value')] };
  }
  if (typeof next !== 'number' || next < 0 || next > MAX_INT32) return { stop: true, found: [invalidValue(field, next, `must be between 0 and ${MAX_INT32}, inclusive`)] };
  if (typeof old === 'number' && old < next) return { stop: true, found: [invalidValue(field, next, 'must be less than or equal to previous value')] };
  return { stop: false, found: [] };
}

/** validateOnlyAddedTolerations: every old toleration is still there, its tolerationSeconds aside. */
function onlyAddedTolerations(next: Toleration[], old: Toleration[]): StatusCause[] {
  const identity = (t: Toleration): string => JSON.stringify([t?.key ?? '', t?.operator ?? '', t?.value ?? '', t?.effect ?? '']);
  const kept = new Set(next.map(identity));
  if (old.every((t) => kept.has(identity(t)))) return [];
  return [forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
}

type Gate = { name?: string };
const gatesOf = (spec: PodSpec): Gate[] => (Array.isArray(spec.schedulingGates) ? (spec.schedulingGates as Gate[]) : []);

/** validateOnlyDeletedSchedulingGates: a gate may be removed, never added. */
function onlyDeletedSchedulingGates(next: Gate[], old: Gate[]): StatusCause[] {
  const before = new Set(old.map((g) => g?.name));
  return next.flatMap((g, i) => (before.has(g?.name) ? [] : [forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${g?.name ?? ''}'`)]));
}

/** The new spec with what may change put back as it was, and what a gated pod's nodeSelector change breaks. */
function mungedSpec(spec: PodSpec, old: PodSpec): { munged: PodSpec; found: StatusCause[] } {
  const munged: PodSpec = structuredClone(spec);
  munged.containers = withImagesOf(munged.containers ?? [], old.containers ?? []);
  if (munged.initContainers) munged.initContainers = withImagesOf(munged.initContainers, old.initContainers ?? []);
  setOrDelete(munged, 'activeDeadlineSeconds', old.activeDeadlineSeconds);
  setOrDelete(munged, 'schedulingGates', old.schedulingGates);
  setOrDelete(munged, 'tolerations', old.tolerations);
  const grace = old.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = grace;
  const found: StatusCause[] = [];
  if (gatesOf(old).length > 0 && !semanticallyEqual(munged.nodeSelector ?? {}, old.nodeSelector ?? {})) {
    const next = munged.nodeSelector ?? {};
    const mutated = Object.entries(old.nodeSelector ?? {}).some(([k, v]) => next[k] !== v);
    if (mutated) found.push(invalidValue('spec.nodeSelector', next, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'));
    setOrDelete(munged, 'nodeSelector', old.nodeSelector);
  }
  return { munged, found };
}

function withImagesOf(next: Container[], old: Container[]): Container[] {
  return next.map((c, i) => ({ ...c, image: old[i]?.image ?? c.image }));
}

/** Sets spec[key] to a copy of `value`, or leaves it out when undefined. */
export function setOrDelete(spec: PodSpec, key: string, value: unknown): void {
  if (value === undefined) delete spec[key];
  else spec[key] = structuredClone(value);
}
