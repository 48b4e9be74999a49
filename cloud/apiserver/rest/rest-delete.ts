import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject, Namespace, Pod } from '../../../shared/types.js';
import type { DeleteRequestOptions } from './delete-options.js';
import {
  IMMORTAL_NAMESPACES, checkDeletionOnUpdate, completesDeletion, finalizersAfterDelete, immortalNamespace,
  isNamespaces, markAsDeleting, startTermination,
} from './deletion-rules.js';
import { isDeleting } from '../../client/deletion.js';
import { markForGracefulDeletion, podGracePeriod } from './graceful.js';
import { checkTypeMeta } from './server-metadata.js';
import type { ResourceDef } from '../kinds/registry.js';
import { jsonResponse, type ApiResponse } from '../request.js';
import { decodeObject } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from './rest-context.js';
import { conflict, sameObject, type Transform } from './storage.js';

/**
 * Deletion against storage, as kube-apiserver's generic registry does it: an object with
 * finalizers is only marked (deletionTimestamp), an update that removes the last finalizer of
 * a marked object removes it, and namespaces go through Terminating first.
 */

const ATTEMPTS = 5;
/** Unconditional updates retry longer: only other apiservers' writes can come in between. */
const UPDATE_ATTEMPTS = 20;
const isPods = (def: ResourceDef): boolean => def.group === '' && def.resource === 'pods';

export interface DeleteOutcome {
  /** The object as stored now (still there) or as it was last (removed). */
  object: KubeObject;
  /** Whether it left the store. */
  deleted: boolean;
}

/** One object's DELETE. Compare-and-set writes, retried when someone else wrote in between. */
export async function deleteOne(deps: RestDeps, def: ResourceDef, namespace: string | undefined, name: string, options: DeleteRequestOptions): Promise<DeleteOutcome> {
  if (isNamespaces(def) && IMMORTAL_NAMESPACES.has(name)) throw immortalNamespace(name);
  for (let attempt = 1; ; attempt++) {
    const current = await deps.storage.get(def, namespace, name);
    checkPreconditions(def, current, options.preconditions);
    try {
      return await deleteStep(deps, def, current, options);
    } catch (err) {
      if (!isKedgeError(err, 'Conflict') || attempt >= ATTEMPTS) throw err;
    }
  }
}

async function deleteStep(deps: RestDeps, def: ResourceDef, current: KubeObject, options: DeleteRequestOptions): Promise<DeleteOutcome> {
  const now = deps.clock.now();
  if (isNamespaces(def) && !isDeleting(current)) {
    const ns = structuredClone(current) as Namespace;
    startTermination(ns, options, now);
    return { object: await deps.storage.update(def, ns, current.metadata.resourceVersion!), deleted: false };
  }
  if (isNamespaces(def) && ((current as Namespace).spec?.finalizers?.length ?? 0) > 0) return { object: current, deleted: false };
  const grace = isPods(def) ? podGracePeriod(current as Pod, options) : 0;
  if (grace > 0) {
    const marked = markForGracefulDeletion(current, grace, now);
    return { object: marked ? await deps.storage.update(def, marked, current.metadata.resourceVersion!) : current, deleted: false };
  }
  const finalizers = finalizersAfterDelete(current.metadata.finalizers ?? [], options);
  if (finalizers.length > 0) {
    const next = structuredClone(current);
    next.metadata.finalizers = finalizers;
    markAsDeleting(next, now);
    if (sameObject(next, current)) return { object: current, deleted: false };
    return { object: await deps.storage.update(def, next, current.metadata.resourceVersion!), deleted: false };
  }
  const { namespace, name, resourceVersion } = current.metadata;
  const deleted = await deps.storage.delete(def, namespace, name!, resourceVersion);
  return { object: { ...current, metadata: { ...current.metadata, resourceVersion: deleted.metadata.resourceVersion } }, deleted: true };
}

function checkPreconditions(def: ResourceDef, current: KubeObject, preconditions: DeleteRequestOptions['preconditions']): void {
  const { uid, resourceVersion, name = '' } = current.metadata;
  if (preconditions?.uid && preconditions.uid !== uid) {
    throw conflict(def, name, `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${uid}`);
  }
  if (preconditions?.resourceVersion && preconditions.resourceVersion !== resourceVersion) {
    throw conflict(def, name, `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${resourceVersion}`);
  }
}

/**
 * storage.guaranteedUpdate (queued per object, retried on Conflict), except that an update
 * leaving a deleting object without finalizers removes it: the answer is the updated object,
 * the watch sees DELETED.
 */
export function updateOrRemove(deps: RestDeps, def: ResourceDef, namespace: string | undefined, name: string, transform: Transform, readsOnly = false): Promise<KubeObject> {
  const write = (next: KubeObject, current: KubeObject): Promise<KubeObject> => writeOrRemove(deps, def, next, current, readsOnly);
  return deps.storage.guaranteedUpdate(def, namespace, name, transform, { attempts: UPDATE_ATTEMPTS, write, readsOnly });
}

async function writeOrRemove(deps: RestDeps, def: ResourceDef, next: KubeObject, current: KubeObject, owned: boolean): Promise<KubeObject> {
  checkDeletionOnUpdate(def, next, current);
  const removing = completesDeletion(def, next, current);
  if (!removing && sameObject(next, current)) return current;
  if (!removing) return deps.storage.update(def, next, current.metadata.resourceVersion!, owned);
  const { namespace, name } = current.metadata;
  const deleted = await deps.storage.delete(def, namespace, name!, current.metadata.resourceVersion);
  return { ...next, metadata: { ...next.metadata, resourceVersion: deleted.metadata.resourceVersion } };
}

/** PUT namespaces/<name>/finalize: takes spec.finalizers from the body, nothing else. */
export async function finalizeNamespace(deps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const body = decodeObject(call.req) as Namespace;
  checkTypeMeta(call.def, body);
  const name = call.path.name!;
  if (body.metadata.name !== undefined && body.metadata.name !== name) {
    throw new KedgeError('BadRequest', `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
  }
  const finalizers = body.spec?.finalizers ?? [];
  if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) {
    throw new KedgeError('BadRequest', 'spec.finalizers must be a list of strings');
  }
  const expected = body.metadata.resourceVersion;
  const updated = await updateOrRemove(deps, call.def, undefined, name, (current) => {
    if (expected && expected !== current.metadata.resourceVersion) throw conflict(call.def, name);
    const ns = current as Namespace;
    ns.spec = { ...ns.spec, finalizers: [...finalizers] };
    if (finalizers.length === 0) delete ns.spec.finalizers;
    return ns;
  });
  return jsonResponse(200, updated);
}
