import type { CronJob, Job } from '../../../shared/batch-types.js';
import type { KubeObject } from '../../../shared/types.js';
import { normalizePodSpecQuantities } from '../admission/quantity-validation.js';
import { defaultCronJob, defaultJob } from '../../client/batch-defaults.js';
import { cronJobPrinter, jobPrinter } from './batch-printers.js';
import { validateCronJob, validateJob } from './batch-validation.js';
import type { ResourceDef, SubresourceDef } from './registry.js';

/** batch/v1 Jobs and CronJobs: rows of the resource table, with status subresources. */

export const BATCH_GROUP = 'batch';

const status: SubresourceDef = { name: 'status', verbs: ['get', 'patch', 'update'] };

export const jobResource: ResourceDef = {
  group: BATCH_GROUP, version: 'v1', resource: 'jobs', singular: 'job', kind: 'Job', namespaced: true,
  shortNames: [], categories: ['all'], subresources: [status], printer: jobPrinter,
  strategy: {
    normalize: (obj: KubeObject) => normalizePodSpecQuantities((obj as Job).spec?.template?.spec),
    defaultOnCreate: (obj) => defaultJob(obj as Job),
    validate: (obj, ctx) => validateJob(obj as Job, ctx),
  },
};

export const cronJobResource: ResourceDef = {
  group: BATCH_GROUP, version: 'v1', resource: 'cronjobs', singular: 'cronjob', kind: 'CronJob', namespaced: true,
  shortNames: ['cj'], categories: ['all'], subresources: [status], printer: cronJobPrinter,
  strategy: {
    normalize: (obj: KubeObject) => normalizePodSpecQuantities((obj as CronJob).spec?.jobTemplate?.spec?.template?.spec),
    defaultOnCreate: (obj) => defaultCronJob(obj as CronJob),
    validate: (obj) => validateCronJob(obj as CronJob),
  },
};

export const batchResources: ResourceDef[] = [jobResource, cronJobResource];
