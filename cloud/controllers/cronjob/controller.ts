import type { CronJob, Job } from '../../../shared/batch-types.js';
import { objectKey } from '../../../shared/types.js';
import { getOrUndefined } from '../../client/client.js';
import type { CacheEvent } from '../../informer/informer.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { controllerRefOf } from '../controller-ref.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { newerCopy, ObjectCache } from '../object-cache.js';
import { splitKey } from '../replicaset/controller.js';
import { applyCronJobActions } from './apply.js';
import { planCronJob } from './plan.js';

/** Creates Jobs on each CronJob's schedule (kube's CronJob controller v2), on its cron clock (cron-clock.ts). */
export const cronJobController: Controller = { name: 'cronjob', start: startCronJobController };

async function startCronJobController(ctx: ControllerContext): Promise<RunningController> {
  const { api, clock, timing, events } = ctx;
  const logger = ctx.logger.child('cronjob-controller');
  const cronJobs = new ObjectCache<CronJob>();
  const jobs = new ObjectCache<Job>();
  const written = new Map<string, CronJob>();

  /** Active Jobs the informer does not show: gone for sure only when the API says so. */
  const missingOf = async (cj: CronJob, children: readonly Job[]): Promise<Set<string>> => {
    const missing = new Set<string>();
    for (const ref of cj.status?.active ?? []) {
      if (!ref.uid || children.some((j) => j.metadata.uid === ref.uid)) continue;
      const job = await getOrUndefined(() => api.get<Job>({ resource: 'jobs', group: 'batch', namespace: cj.metadata.namespace, name: ref.name }));
      if (job?.metadata.uid !== ref.uid) missing.add(ref.uid);
    }
    return missing;
  };
  const reconcile = async (key: string): Promise<void> => {
    const { namespace, name } = splitKey(key);
    const cj = newerCopy(cronJobs.get(namespace, name), written.get(key));
    if (!cj) return void written.delete(key);
    const children = jobs.list(namespace).filter((j) => controllerRefOf(j)?.uid === cj.metadata.uid);
    const actions = planCronJob({ cj, jobs: children, missing: await missingOf(cj, children), now: clock.now(), timeScale: timing.timeScale });
    const deps = { api, events, requeueAfter: (k: string, ms: number) => loop.addAfter(k, ms), wrote: (c: CronJob) => void written.set(key, c) };
    await applyCronJobActions(deps, cj, actions);
  };
  const loop = new ControllerLoop({ clock, logger, reconcile });

  const onCronJob = (e: CacheEvent<CronJob>): void => {
    cronJobs.apply(e);
    if (e.type !== 'SYNCED') loop.queue.add(objectKey(e.object.metadata));
  };
  const onJob = (e: CacheEvent<Job>): void => {
    jobs.apply(e);
    if (e.type === 'SYNCED') return;
    const ref = controllerRefOf(e.object);
    if (ref?.kind === 'CronJob') loop.queue.add(`${e.object.metadata.namespace}/${ref.name}`);
  };

  await loop.start([
    source(ctx.informers.of<CronJob>({ resource: 'cronjobs', group: 'batch' }), onCronJob),
    source(ctx.informers.of<Job>({ resource: 'jobs', group: 'batch' }), onJob),
  ]);
  return { close: () => loop.close() };
}
