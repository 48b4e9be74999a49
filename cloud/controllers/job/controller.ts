import type { Job } from '../../../shared/batch-types.js';
import { scaledMs } from '../../../shared/timing.js';
import { objectKey, type Pod } from '../../../shared/types.js';
import { getOrUndefined } from '../../client/client.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { controllerRefOf } from '../controller-ref.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { controllerKeyIn, newerCopy, ObjectCache } from '../object-cache.js';
import { Expectations } from '../replicaset/index.js';
import { splitKey } from '../replicaset/controller.js';
import { applyJobActions, removeTrackingFinalizer } from './apply.js';
import { planJob } from './plan.js';
import { hasTrackingFinalizer } from './pods.js';

/** Expectations older than this are dropped, in case an event was missed (client-go: 5 minutes). */
const EXPECTATIONS_TIMEOUT_S = 300;
/** Keys of pods whose Job is gone but which still hold the tracking finalizer. */
const ORPHAN = 'orphan-pod:';

/** Runs every Job's pods to completion (kube's Job controller, with its TTL-after-finished part). */
export const jobController: Controller = { name: 'job', start: startJobController };

async function startJobController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('job-controller');
  const jobs = new ObjectCache<Job>();
  const pods = new ObjectCache<Pod>();
  const written = new Map<string, Job>();
  const expectations = new Expectations(clock, scaledMs(timing, EXPECTATIONS_TIMEOUT_S));

  const releaseOrphan = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key.slice(ORPHAN.length));
    const pod = pods.get(namespace, name);
    const ref = pod && controllerRefOf(pod);
    if (!pod || !ref || !hasTrackingFinalizer(pod)) return;
    const job = await getOrUndefined(() => api.get<Job>({ resource: 'jobs', group: 'batch', namespace, name: ref.name }));
    if (!job || job.metadata.uid !== ref.uid) await removeTrackingFinalizer(api, pod);
  };
  const reconcile = async (key: string): Promise<void> => {
    if (key.startsWith(ORPHAN)) return releaseOrphan(key);
    const { namespace, name } = splitKey(key);
    const job = newerCopy(jobs.get(namespace, name), written.get(key));
    if (!job) {
      written.delete(key);
      return expectations.forget(key);
    }
    const actions = planJob({ job, pods: pods.list(namespace), expectationsSatisfied: expectations.satisfied(key), now: clock.now(), timeScale: timing.timeScale });
    const deps = { api, events, expectations, requeueAfter: (k: string, ms: number) => loop.addAfter(k, ms), wrote: (j: Job) => void written.set(key, j) };
    await applyJobActions(deps, job, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile });

  /** The key of the Job controlling `pod` if we know it, else (for a pod still held by the finalizer) its orphan key. */
  const keyOf = (pod: Pod): string | undefined => {
    if (controllerRefOf(pod)?.kind !== 'Job') return undefined;
    return controllerKeyIn(jobs, 'Job', pod) ?? (hasTrackingFinalizer(pod) ? ORPHAN + objectKey(pod.metadata) : undefined);
  };
  const onPod = (e: CacheEvent<Pod>): void => {
    pods.apply(e);
    if (e.type === 'SYNCED') return;
    const key = keyOf(e.object);
    if (key === undefined) return;
    if (e.type === 'ADDED') expectations.creationObserved(key);
    if (e.type === 'DELETED' || e.object.metadata.deletionTimestamp) expectations.deletionObserved(key, e.object.metadata.uid!);
    loop.queue.add(key);
  };
  const onJob = (e: CacheEvent<Job>): void => {
    jobs.apply(e);
    if (e.type === 'SYNCED') return;
    const key = objectKey(e.object.metadata);
    if (e.type === 'DELETED') {
      for (const pod of pods.list(e.object.metadata.namespace)) if (controllerRefOf(pod)?.uid === e.object.metadata.uid && hasTrackingFinalizer(pod)) loop.queue.add(ORPHAN + objectKey(pod.metadata));
    }
    loop.queue.add(key);
  };

  await loop.start([
    source(ctx.informers.of<Job>({ resource: 'jobs', group: 'batch' }), onJob),
    source(ctx.informers.of<Pod>({ resource: 'pods' }), onPod),
  ]);
  return { close: () => loop.close() };
}

