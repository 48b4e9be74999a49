import { LabelSelector, ObjectMeta, PodTemplateSpec, type Schema } from './schemas.js';

/**
 * batch/v1 messages kubectl sends (`kubectl create job|cronjob`, `create job --from=cronjob/x`),
 * field numbers from k8s.io/api batch/v1 generated.proto.
 */

const JobSpec: Schema = [
  [1, 'parallelism', 'int', 'pointer'],
  [2, 'completions', 'int', 'pointer'],
  [3, 'activeDeadlineSeconds', 'int', 'pointer'],
  [7, 'backoffLimit', 'int', 'pointer'],
  [4, 'selector', LabelSelector],
  [5, 'manualSelector', 'bool', 'pointer'],
  [6, 'template', PodTemplateSpec],
  [8, 'ttlSecondsAfterFinished', 'int', 'pointer'],
  [9, 'completionMode', 'string'],
  [10, 'suspend', 'bool', 'pointer'],
  [14, 'podReplacementPolicy', 'string'],
];

const JobTemplateSpec: Schema = [
  [1, 'metadata', ObjectMeta],
  [2, 'spec', JobSpec],
];

const CronJobSpec: Schema = [
  [1, 'schedule', 'string'],
  [8, 'timeZone', 'string'],
  [2, 'startingDeadlineSeconds', 'int', 'pointer'],
  [3, 'concurrencyPolicy', 'string'],
  [4, 'suspend', 'bool', 'pointer'],
  [5, 'jobTemplate', JobTemplateSpec],
  [6, 'successfulJobsHistoryLimit', 'int', 'pointer'],
  [7, 'failedJobsHistoryLimit', 'int', 'pointer'],
];

export const batchSchemas: Readonly<Record<string, Schema>> = {
  'batch/v1 Job': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', JobSpec],
  ],
  'batch/v1 CronJob': [
    [1, 'metadata', ObjectMeta],
    [2, 'spec', CronJobSpec],
  ],
};
