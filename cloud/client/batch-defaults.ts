import type { CronJob, Job, JobSpec } from '../../shared/batch-types.js';
import {
  JOB_CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL,
} from '../../shared/batch-types.js';
import { defaultPodTemplate } from './apps-defaults.js';

/**
 * batch/v1 defaulting as kube-apiserver 1.32 does it (SetDefaults_Job, SetDefaults_CronJob, and
 * the Job strategy's generated selector). Each function mutates what it is given.
 */

export function defaultJobSpec(spec: JobSpec): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  if (spec.template && typeof spec.template === 'object') defaultPodTemplate(spec.template);
}

/**
 * A Job on create: defaults, then (unless spec.manualSelector) the selector on its uid and the
 * labels kube 1.32 adds to the pod template; the Job itself gets the template's labels when it
 * has none (kube's defaulting does so when it reads the Job back).
 */
export function defaultJob(job: Job): void {
  job.spec ??= {} as JobSpec;
  defaultJobSpec(job.spec);
  if (job.spec.manualSelector !== true) generateSelector(job);
  const templateLabels = job.spec.template?.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
  delete job.status;
}

function generateSelector(job: Job): void {
  const template = job.spec.template;
  if (!template || typeof template !== 'object') return;
  template.metadata ??= {};
  const labels = (template.metadata.labels ??= {});
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  labels[LEGACY_JOB_NAME_LABEL] ??= name;
  labels[JOB_NAME_LABEL] ??= name;
  labels[LEGACY_CONTROLLER_UID_LABEL] ??= uid;
  labels[JOB_CONTROLLER_UID_LABEL] ??= uid;
  job.spec.selector ??= {};
  job.spec.selector.matchLabels ??= {};
  job.spec.selector.matchLabels[JOB_CONTROLLER_UID_LABEL] ??= uid;
  delete job.spec.manualSelector;
}

export function defaultCronJob(cj: CronJob): void {
  cj.spec ??= {} as CronJob['spec'];
  const spec = cj.spec;
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const template = spec.jobTemplate?.spec?.template;
  if (template && typeof template === 'object') defaultPodTemplate(template);
}
