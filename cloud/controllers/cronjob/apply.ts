import type { CronJob, CronJobStatus, Job } from '../../../shared/batch-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { objectKey } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { controllerRefOf } from '../controller-ref.js';
import type { EventRecorder } from '../events.js';
import { jobRefOf } from './history.js';
import type { CronJobAction } from './plan.js';

/** The thin apply of a CronJob pass, in the plan's order; the first failure stops it. */
export interface CronJobApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  requeueAfter(key: string, ms: number): void;
  /** The CronJob as the last status write returned it. */
  wrote(cj: CronJob): void;
}

const cronJobStatusRef = (cj: CronJob): ResourceRef => ({ resource: 'cronjobs', group: 'batch', namespace: cj.metadata.namespace, name: cj.metadata.name, subresource: 'status' });

export async function applyCronJobActions(deps: CronJobApplyDeps, cj: CronJob, actions: readonly CronJobAction[]): Promise<void> {
  for (const action of actions) {
    switch (action.type) {
      case 'event': deps.events.record(cj, action.eventType, action.reason, action.message); break;
      case 'requeueAfter': deps.requeueAfter(objectKey(cj.metadata), action.ms); break;
      case 'deleteJob': await deleteJob(deps, cj, action.job); break;
      case 'status': await writeStatus(deps, cj, action.status); break;
      case 'createJob': {
        const job = await createJob(deps, cj, action.job);
        const status: CronJobStatus = { ...action.status, active: [...(action.status.active ?? []), jobRefOf(job)], lastScheduleTime: action.scheduledAt };
        await writeStatus(deps, cj, status);
        break;
      }
    }
  }
}

async function writeStatus(deps: CronJobApplyDeps, cj: CronJob, status: CronJobStatus): Promise<void> {
  deps.wrote(await deps.api.replace<CronJob>(cronJobStatusRef(cj), { ...cj, status }));
}

/** Creates the Job; one already there under its name is ours when this CronJob controls it (a pass that died before its status write). */
async function createJob(deps: CronJobApplyDeps, cj: CronJob, body: Job): Promise<Job> {
  const ref = { resource: 'jobs', group: 'batch', namespace: cj.metadata.namespace };
  try {
    const job = await deps.api.create<Job>(ref, body);
    deps.events.record(cj, 'Normal', 'SuccessfulCreate', `Created job ${job.metadata.name}`);
    return job;
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists')) {
      deps.events.record(cj, 'Warning', 'FailedCreate', `Error creating job: ${String((err as Error).message ?? err)}`);
      throw err;
    }
    const existing = await deps.api.get<Job>({ ...ref, name: body.metadata.name });
    if (controllerRefOf(existing)?.uid !== cj.metadata.uid) throw err;
    return existing;
  }
}

async function deleteJob(deps: CronJobApplyDeps, cj: CronJob, job: Job): Promise<void> {
  try {
    await deps.api.delete({ resource: 'jobs', group: 'batch', namespace: job.metadata.namespace, name: job.metadata.name }, { propagationPolicy: 'Background', preconditions: { uid: job.metadata.uid } });
    deps.events.record(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}
