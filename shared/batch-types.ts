import type { LabelSelector, PodTemplateSpec } from './apps-types.js';
import type { ObjectReference } from './service-types.js';
import type { KubeObject, ObjectMeta } from './types.js';

/** The batch/v1 object shapes kedge understands: Jobs and CronJobs. */

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: 'NonIndexed' | 'Indexed';
  suspend?: boolean;
  podReplacementPolicy?: 'TerminatingOrFailed' | 'Failed';
  [field: string]: unknown;
}

export interface JobCondition {
  type: 'Complete' | 'Failed' | 'Suspended' | 'FailureTarget' | 'SuccessCriteriaMet' | string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface UncountedTerminatedPods {
  succeeded?: string[];
  failed?: string[];
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  ready?: number;
  uncountedTerminatedPods?: UncountedTerminatedPods;
}

export interface Job extends KubeObject {
  spec: JobSpec;
  status?: JobStatus;
}

export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec: JobSpec;
}

export interface CronJobSpec {
  schedule: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate: JobTemplateSpec;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

export interface CronJob extends KubeObject {
  spec: CronJobSpec;
  status?: CronJobStatus;
}

/** The finalizer that keeps a Job's pod until the Job controller has counted it. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** Labels kube 1.32 puts on a Job's pod template (both the prefixed and the legacy spelling). */
export const JOB_CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';
/** On a CronJob's Job: the time it was scheduled for (RFC 3339). */
export const CRONJOB_SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
