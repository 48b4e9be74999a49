import type { PodTemplateSpec } from '../../../shared/apps-types.js';
import type { CronJob, Job, JobSpec } from '../../../shared/batch-types.js';
import { CronError, parseCron } from '../../../shared/cron-schedule.js';
import type { StatusCause } from '../../../shared/errors.js';
import { isEmptySelector, selectorMatches } from '../../../shared/label-selector.js';
import { stableJson } from '../../client/object-meta.js';
import { invalidValue, required, unsupported } from '../admission/admission.js';
import { nonNegative, templatePodCauses, validateExpressions } from './apps-validation.js';
import type { AdmissionContext } from './registry.js';

/** batch/v1 validation (ValidateJob, ValidateCronJob): the parts kedge relies on, in kube's wording. */

/** Time zones kedge evaluates schedules in (see docs/controllers.md). */
export const SUPPORTED_TIME_ZONES = ['UTC', 'Etc/UTC'];

export function validateJob(job: Job, ctx: AdmissionContext): StatusCause[] {
  if (!job.spec || typeof job.spec !== 'object') return [required('spec')];
  return [...validateJobSpec(job.spec, 'spec', true), ...immutableJobFields(job, ctx)];
}

function validateJobSpec(spec: JobSpec, at: string, selectorRequired: boolean): StatusCause[] {
  const causes = ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished'].flatMap((f) => nonNegative(`${at}.${f}`, spec[f]));
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') causes.push(unsupported(`${at}.completionMode`, mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed') causes.push({ reason: 'FieldValueForbidden', field: `${at}.completionMode`, message: 'Forbidden: kedge does not implement Indexed Jobs' });
  const replacement = spec.podReplacementPolicy;
  if (replacement !== undefined && replacement !== 'TerminatingOrFailed' && replacement !== 'Failed') {
    causes.push(unsupported(`${at}.podReplacementPolicy`, replacement, ['Failed', 'TerminatingOrFailed']));
  }
  const selector = spec.selector;
  if (selector === undefined || selector === null) {
    if (selectorRequired) causes.push(required(`${at}.selector`));
  } else if (typeof selector !== 'object') causes.push(invalidValue(`${at}.selector`, selector, 'must be a label selector'));
  else causes.push(...validateExpressions(selector));
  const template = spec.template;
  if (!template || typeof template !== 'object') return [...causes, required(`${at}.template`)];
  const labels = template.metadata?.labels ?? {};
  if (selector && typeof selector === 'object' && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    causes.push(invalidValue(`${at}.template.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  causes.push(...templatePodCauses(template, `${at}.template`));
  const policy = template.spec?.restartPolicy;
  if (policy !== 'OnFailure' && policy !== 'Never') causes.push(unsupported(`${at}.template.spec.restartPolicy`, policy ?? '', ['OnFailure', 'Never']));
  return causes;
}

/** ValidateJobSpecUpdate's immutable fields, in kube's order ('template' is checked by templateUpdateCauses). */
const IMMUTABLE_JOB_FIELDS = ['completions', 'selector', 'template', 'completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy'] as const;

function immutableJobFields(job: Job, ctx: AdmissionContext): StatusCause[] {
  if (ctx.operation !== 'update' || !ctx.old) return [];
  const old = ctx.old as Job;
  const before = old.spec ?? {};
  const schedulingMutable = before.suspend === true && !old.status?.startTime;
  return IMMUTABLE_JOB_FIELDS.flatMap((f) => {
    const was = f === 'template' ? templateAsChecked(job.spec.template, before.template, schedulingMutable) : before[f];
    return stableJson(was) === stableJson(job.spec[f]) ? [] : [invalidValue(`spec.${f}`, job.spec[f], 'field is immutable')];
  });
}

/**
 * validatePodTemplateUpdate: the old template, with what a suspended Job that never started may
 * change (its scheduling directives: node affinity, nodeSelector, tolerations, schedulingGates,
 * labels and annotations) taken from the new one.
 */
function templateAsChecked(next: PodTemplateSpec | undefined, old: PodTemplateSpec | undefined, schedulingMutable: boolean): PodTemplateSpec | undefined {
  if (!schedulingMutable || !next || !old) return old;
  const out = structuredClone(old);
  out.metadata = { ...out.metadata, labels: next.metadata?.labels, annotations: next.metadata?.annotations };
  const spec = out.spec as unknown as Record<string, unknown>;
  const nextSpec = (next.spec ?? {}) as unknown as Record<string, unknown>;
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) spec[key] = nextSpec[key];
  const affinity = { ...(spec.affinity as Record<string, unknown> | undefined), nodeAffinity: (nextSpec.affinity as Record<string, unknown> | undefined)?.nodeAffinity };
  spec.affinity = Object.values(affinity).some((v) => v !== undefined) || nextSpec.affinity !== undefined ? affinity : undefined;
  return JSON.parse(JSON.stringify(out)) as PodTemplateSpec;
}

export function validateCronJob(cj: CronJob): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((cj.metadata.name ?? '').length > 52) causes.push(invalidValue('metadata.name', cj.metadata.name, 'must be no more than 52 characters'));
  const spec = cj.spec;
  if (!spec || typeof spec !== 'object') return [...causes, required('spec')];
  causes.push(...validateSchedule(spec.schedule), ...validateTimeZone(spec.timeZone));
  causes.push(...['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'].flatMap((f) => nonNegative(`spec.${f}`, spec[f as keyof typeof spec])));
  const policy = spec.concurrencyPolicy;
  if (policy !== undefined && !['Allow', 'Forbid', 'Replace'].includes(policy)) causes.push(unsupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  const jobSpec = spec.jobTemplate?.spec;
  if (!jobSpec || typeof jobSpec !== 'object') return [...causes, required('spec.jobTemplate.spec')];
  return [...causes, ...validateJobSpec(jobSpec, 'spec.jobTemplate.spec', false)];
}

function validateSchedule(schedule: unknown): StatusCause[] {
  if (typeof schedule !== 'string' || schedule === '') return [required('spec.schedule')];
  if (schedule.includes('TZ')) return [invalidValue('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead')];
  try {
    parseCron(schedule);
    return [];
  } catch (err) {
    if (err instanceof CronError) return [invalidValue('spec.schedule', schedule, err.message)];
    throw err;
  }
}

function validateTimeZone(zone: unknown): StatusCause[] {
  if (zone === undefined || zone === null) return [];
  if (typeof zone === 'string' && SUPPORTED_TIME_ZONES.includes(zone)) return [];
  return [invalidValue('spec.timeZone', zone, `kedge evaluates schedules in UTC only: use ${SUPPORTED_TIME_ZONES.map((z) => JSON.stringify(z)).join(' or ')}, or leave it unset`)];
}
