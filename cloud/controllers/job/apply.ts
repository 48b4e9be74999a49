import { JOB_TRACKING_FINALIZER, type Job } from '../../../shared/batch-types.js';
import { isKedgeError } from '../../../shared/errors.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import { getOrUndefined, type ApiClient, type ResourceRef } from '../../client/client.js';
import { controllerRefTo } from '../controller-ref.js';
import type { EventRecorder } from '../events.js';
import type { Expectations } from '../replicaset/index.js';
import type { JobAction } from './plan.js';

/** The thin apply of a Job pass: API writes, expectations and Events, in the plan's order; the first failure stops it. */
export interface JobApplyDeps {
  api: ApiClient;
  events: EventRecorder;
  expectations: Expectations;
  requeueAfter(key: string, ms: number): void;
  /** The Job as the last status write returned it, newer than the informer may show yet. */
  wrote(job: Job): void;
}

export const jobRef = (job: Job, subresource?: string): ResourceRef => ({
  resource: 'jobs', group: 'batch', namespace: job.metadata.namespace, name: job.metadata.name, ...(subresource ? { subresource } : {}),
});

export async function applyJobActions(deps: JobApplyDeps, job: Job, actions: readonly JobAction[]): Promise<void> {
  const key = objectKey(job.metadata);
  for (const action of actions) {
    switch (action.type) {
      case 'create': await createPods(deps, job, key, action.count); break;
      case 'delete': await deletePods(deps, job, key, action.pods); break;
      case 'status': deps.wrote(await deps.api.replace<Job>(jobRef(job, 'status'), { ...job, status: action.status })); break;
      case 'removeFinalizer': await Promise.all(action.pods.map((pod) => removeTrackingFinalizer(deps.api, pod))); break;
      case 'event': deps.events.record(job, action.eventType, action.reason, action.message); break;
      case 'requeueAfter': deps.requeueAfter(key, action.ms); break;
      case 'deleteJob': await deleteJob(deps.api, job); break;
    }
  }
}

/** A pod from the Job's template: named `<job>-xxxxx`, controlled by the Job, held by the tracking finalizer. */
export function podFromJob(job: Job): Pod {
  const meta = job.spec.template.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${job.metadata.name}-`,
      namespace: job.metadata.namespace,
      labels: { ...meta.labels },
      finalizers: [...(meta.finalizers ?? []), JOB_TRACKING_FINALIZER],
      ownerReferences: [controllerRefTo(job, 'batch/v1', 'Job')],
    },
    spec: structuredClone(job.spec.template.spec),
  };
  if (meta.annotations) pod.metadata.annotations = { ...meta.annotations };
  return pod;
}

async function createPods(deps: JobApplyDeps, job: Job, key: string, count: number): Promise<void> {
  deps.expectations.expectCreations(key, count);
  let failure: unknown;
  for (let i = 0; i < count; i++) {
    if (failure !== undefined) {
      deps.expectations.creationObserved(key);
      continue;
    }
    try {
      const pod = await deps.api.create<Pod>({ resource: 'pods', namespace: job.metadata.namespace }, podFromJob(job));
      deps.events.record(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
    } catch (err) {
      failure = err;
      deps.expectations.creationObserved(key);
      deps.events.record(job, 'Warning', 'FailedCreate', `Error creating: ${String((err as Error).message ?? err)}`);
    }
  }
  if (failure !== undefined) throw failure;
}

async function deletePods(deps: JobApplyDeps, job: Job, key: string, pods: readonly Pod[]): Promise<void> {
  deps.expectations.expectDeletions(key, pods.map((p) => p.metadata.uid!));
  for (const pod of pods) {
    const { namespace, name, uid } = pod.metadata;
    try {
      await deps.api.delete({ resource: 'pods', namespace, name }, { preconditions: { uid } });
      deps.events.record(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (err) {
      deps.expectations.deletionObserved(key, uid!);
      if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
    }
  }
}

/** Removes the tracking finalizer (compare-and-set, once more on a Conflict); a pod already gone is fine. */
export async function removeTrackingFinalizer(api: ApiClient, pod: Pod): Promise<void> {
  const ref = { resource: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name };
  let current = pod;
  for (let attempt = 1; ; attempt++) {
    const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
    if (finalizers.length === (current.metadata.finalizers ?? []).length || current.metadata.uid !== pod.metadata.uid) return;
    try {
      await api.patch(ref, { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers: finalizers.length > 0 ? finalizers : null } }, 'merge');
      return;
    } catch (err) {
      if (isKedgeError(err, 'NotFound')) return;
      if (!isKedgeError(err, 'Conflict') || attempt >= 3) throw err;
      const fresh = await getOrUndefined(() => api.get<Pod>(ref));
      if (!fresh) return;
      current = fresh;
    }
  }
}

/** ttlSecondsAfterFinished: deleted as kube's TTL controller does, dependents first (Foreground). */
async function deleteJob(api: ApiClient, job: Job): Promise<void> {
  try {
    await api.delete(jobRef(job), { propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid } });
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}
