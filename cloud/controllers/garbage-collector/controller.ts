import type { KubeObject } from '../../../shared/types.js';
import { isDeleting } from '../../client/deletion.js';
import type { ApiResource } from '../../client/api-resource.js';
import type { Backoff } from '../../informer/key-queue.js';
import type { Controller, ControllerContext, RunningController } from '../controller.js';
import { ControllerLoop, source } from '../controller-loop.js';
import { applyGcActions, liveObject, type GcApplyDeps } from './apply.js';
import { OwnerGraph } from './graph.js';
import { entryRef, resourceRef } from './object-ref.js';
import { needsLook, resolveOwners, type OwnerView } from './owners.js';
import { planDependent, planOwner } from './plan.js';
import { observe } from './triggers.js';

export interface GarbageCollectorOptions {
  /** Retry of a failed key (default 100 ms doubling to 30 s). */
  backoff?: Backoff;
  /** Objects worked on at once (default 4). */
  concurrency?: number;
}

/**
 * The kinds the collector watches: those kept in the store (computed kinds cannot be watched
 * or deleted), except Events, as kube's default ignoredResources.
 */
export function collectsGarbageOf(def: ApiResource): boolean {
  const events = def.resource === 'events' && (def.group === '' || def.group === 'events.k8s.io');
  return def.source === undefined && !events;
}

/**
 * The garbage collector: it watches every kind it is given (so kinds added to the resource
 * table later are covered), keeps the owner → dependents graph by uid, deletes dependents
 * whose owners are all gone, and does the work of the `orphan` and `foregroundDeletion`
 * finalizers. Queue keys are uids.
 */
export function garbageCollector(resources: readonly ApiResource[], options: GarbageCollectorOptions = {}): Controller {
  return { name: 'garbage-collector', start: (ctx) => startGarbageCollector(ctx, resources, options) };
}

async function startGarbageCollector(ctx: ControllerContext, resources: readonly ApiResource[], options: GarbageCollectorOptions): Promise<RunningController> {
  const { api, clock } = ctx;
  const logger = ctx.logger.child('garbage-collector');
  const watched = resources.filter(collectsGarbageOf);
  const view: OwnerView = { graph: new OwnerGraph(), resources, absent: new Set() };
  const deps: GcApplyDeps = { api, logger, recheck: (uid) => loop.queue.add(uid) };

  const reconcile = async (uid: string): Promise<void> => {
    const entry = view.graph.get(uid);
    if (!entry) return;
    if (isDeleting(entry.object)) return applyGcActions(deps, planOwner(entry, view.graph.dependentsOf(uid)));
    if (!needsLook(view, entry)) return;
    // The cached dependent may lag (an orphaning may have just removed its reference): decide on the live one.
    const live = await liveObject(api, entryRef(entry));
    if (!live || live.metadata.uid !== uid) return;
    const dependent = { def: entry.def, object: live };
    const owners = await resolveOwners(view, dependent, (ref) => liveObject(api, ref));
    await applyGcActions(deps, planDependent(dependent, owners, view.graph.hasDependents(uid)));
  };

  const loop = new ControllerLoop({ clock, logger, reconcile, backoff: options.backoff ?? { minMs: 100, maxMs: 30_000 }, concurrency: options.concurrency ?? 4 });
  await loop.start(
    watched.map((def) =>
      source(ctx.informers.of<KubeObject>(resourceRef(def)), (event) => {
        for (const uid of observe(view, def, event)) loop.queue.add(uid);
      }),
    ),
  );
  // Workers start once every cache holds its first list, so owners are known before dependents are judged.
  logger.info('garbage collector started', { kinds: watched.map((d) => (d.group ? `${d.resource}.${d.group}` : d.resource)) });
  return { close: () => loop.close() };
}
