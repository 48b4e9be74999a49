import { isKedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { KubeObject, ObjectMeta } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { entryRef, type GraphEntry } from './object-ref.js';
import type { GcAction } from './plan.js';

export interface GcApplyDeps {
  api: ApiClient;
  logger: Logger;
  /** Puts a uid back on the work queue. */
  recheck(uid: string): void;
}

/**
 * Carries out a plan in order (an orphan finalizer goes only after every reference to its owner
 * did). An object that is gone, or was replaced by one with another uid, is done with; other
 * failures throw so the key is retried with backoff.
 */
export async function applyGcActions(deps: GcApplyDeps, actions: readonly GcAction[]): Promise<void> {
  for (const action of actions) await applyOne(deps, action);
}

async function applyOne(deps: GcApplyDeps, action: GcAction): Promise<void> {
  switch (action.type) {
    case 'recheck':
      for (const uid of action.uids) deps.recheck(uid);
      return;
    case 'delete':
      deps.logger.info('deleting dependent', { object: describe(action.target), policy: action.policy });
      return ignoreGone(deps.api.delete(entryRef(action.target), { propagationPolicy: action.policy, preconditions: { uid: action.target.object.metadata.uid } }));
    case 'dropOwnerRefs':
      return editMetadata(deps.api, action.target, (meta) => {
        const refs = meta.ownerReferences ?? [];
        const left = refs.filter((r) => !action.owners.includes(r.uid));
        return left.length === refs.length ? undefined : { ownerReferences: left.length > 0 ? left : null };
      });
    case 'removeFinalizer':
      deps.logger.info('removing finalizer', { object: describe(action.target), finalizer: action.finalizer });
      return editMetadata(deps.api, action.target, (meta) => {
        const finalizers = meta.finalizers ?? [];
        const left = finalizers.filter((f) => f !== action.finalizer);
        return left.length === finalizers.length ? undefined : { finalizers: left.length > 0 ? left : null };
      });
  }
}

/**
 * A merge patch of the live object's metadata, pinned to the resourceVersion it was computed
 * from (a concurrent writer makes it fail with Conflict, and the key is retried).
 */
async function editMetadata(api: ApiClient, target: GraphEntry, change: (meta: ObjectMeta) => Record<string, unknown> | undefined): Promise<void> {
  const ref = entryRef(target);
  const live = await liveObject(api, ref);
  if (!live || live.metadata.uid !== target.object.metadata.uid) return;
  const patch = change(live.metadata);
  if (!patch) return;
  try {
    await api.patch(ref, { metadata: { ...patch, resourceVersion: live.metadata.resourceVersion } }, 'merge');
  } catch (err) {
    if (!isKedgeError(err, 'NotFound')) throw err;
  }
}

/** The live object, or undefined when it does not exist. */
export async function liveObject(api: ApiClient, ref: ResourceRef): Promise<KubeObject | undefined> {
  try {
    return await api.get(ref);
  } catch (err) {
    if (isKedgeError(err, 'NotFound')) return undefined;
    throw err;
  }
}

/** A delete is done when the object is gone, or when its uid precondition met a newer object (Conflict). */
export async function ignoreGone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (!isKedgeError(err, 'NotFound') && !isKedgeError(err, 'Conflict')) throw err;
  }
}

function describe(entry: GraphEntry): string {
  const { namespace, name } = entry.object.metadata;
  return `${entry.def.resource}/${namespace ? `${namespace}/` : ''}${name}`;
}
