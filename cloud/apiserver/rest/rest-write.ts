import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';
import { admit } from '../admission/admission.js';
import { admitCreateWithLookups } from '../admission/admission-lookup.js';
import { checkTypeMeta, prepareCreate, prepareUpdate } from './server-metadata.js';
import { prepareObject, serializedFor } from './prepare.js';
import { applyPatch, patchKindOf } from '../patch/patch.js';
import { apiVersionOf, type ResourceDef } from '../kinds/registry.js';
import { jsonResponse, mediaType, withWarnings, type ApiResponse } from '../request.js';
import { judgeBody, judgePatched } from '../schemas/field-validation.js';
import type { AdmissionContext } from '../kinds/registry.js';
import { deleteOptionsOf } from './delete-options.js';
import { depsFor } from './dry-run.js';
import { APPLY_PATCH_TYPE, appliedObject, applyCreateCall, applyRequestOf, applyTargetExists } from '../patch/server-side-apply.js';
import { scopeOf } from '../fields/field-manager.js';
import { IMMORTAL_NAMESPACES, immortalNamespace, isNamespaces } from './deletion-rules.js';
import { decodeBody, decodeObject } from '../http/request-body.js';
import { deleteOne, updateOrRemove, type DeleteOutcome } from './rest-delete.js';
import { selectorOf, type ResourceCall, type RestDeps } from './rest-context.js';
import { conflict, notFound } from './storage.js';

/** create, update (PUT), patch, delete and deletecollection, for a resource or its status. */

type Part = 'main' | 'status';

/** Field ownership of the object about to be created: an Update by the request's manager, or an Apply. */
type CreateOwnership = (candidate: KubeObject, now: number) => KubeObject;

export async function createObject(realDeps: RestDeps, call: ResourceCall, namespacesDef: ResourceDef, own?: CreateOwnership): Promise<ApiResponse> {
  const deps = depsFor(realDeps, call.req);
  const { body: obj, warnings } = judgedBody(deps, call, 'CreateOptions');
  const namespace = call.def.namespaced ? namespaceFor(call, obj) : undefined;
  if (namespace !== undefined) await requireActiveNamespace(deps, namespacesDef, namespace);
  const generated = !obj.metadata.name && Boolean(obj.metadata.generateName);
  const attemptBody = bodyPerAttempt(obj, () => judgedBody(deps, call, 'CreateOptions').body);
  for (let attempt = 1; ; attempt++) {
    const candidate = attemptBody();
    prepareCreate(call.def, candidate, namespace, deps.clock.now());
    try {
      const created = await serializedFor(deps, call.def, async () => {
        const ctx = { operation: 'create', now: deps.clock.now(), user: call.user } as const;
        await prepareObject(deps, call.def, candidate, ctx);
        await admitCreateWithLookups(deps, call.def, candidate, ctx);
        admit(call.def, candidate, ctx);
        if (own) return deps.storage.create(call.def, own(candidate, ctx.now));
        // The candidate is this attempt's own body: the store may keep it as it is.
        return deps.storage.create(call.def, deps.fields.recordUpdate(call, undefined, candidate, ctx.now), true);
      });
      return withWarnings(jsonResponse(201, created), warnings);
    } catch (err) {
      const retry = isKedgeError(err, 'AlreadyExists') && generated && attempt < 5;
      if (!retry) throw err;
    }
  }
}

export async function replaceObject(realDeps: RestDeps, call: ResourceCall, part: Part): Promise<ApiResponse> {
  const deps = depsFor(realDeps, call.req);
  const { body, warnings } = judgedBody(deps, call, 'UpdateOptions');
  const name = call.path.name!;
  if (body.metadata.name !== undefined && body.metadata.name !== name) {
    throw new KedgeError('BadRequest', `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
  }
  checkNamespaceMatch(call, body);
  const expected = body.metadata.resourceVersion;
  const attemptBody = bodyPerAttempt(body, () => judgedBody(deps, call, 'UpdateOptions').body);
  // prepareUpdate reads `current` and builds the object to store from copies and this attempt's body: nothing more to copy.
  const updated = await serializedFor(deps, call.def, () => updateOrRemove(deps, call.def, call.path.namespace, name, (current) => {
    if (expected && expected !== current.metadata.resourceVersion) throw conflict(call.def, name);
    return admitted(deps, call, prepareUpdate(call.def, attemptBody(), current, part, true), current, part);
  }, true));
  return withWarnings(jsonResponse(200, updated), warnings);
}

export async function patchObject(realDeps: RestDeps, call: ResourceCall, part: Part, namespacesDef: ResourceDef): Promise<ApiResponse> {
  const deps = depsFor(realDeps, call.req);
  const type = mediaType(call.req.headers['content-type']);
  const kind = patchKindOf(type);
  const apply = type === APPLY_PATCH_TYPE ? applyRequestOf(call) : undefined;
  if (!kind && !apply) {
    throw new KedgeError('UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`);
  }
  const scope = scopeOf(call.def, part === 'status' ? 'status' : undefined);
  if (apply && part === 'main' && !(await applyTargetExists(deps, call))) {
    const own: CreateOwnership = (candidate, now) => deps.fields.apply({ scope, live: undefined, config: apply.config, merged: candidate, manager: apply.manager, force: apply.force, now });
    return createObject(realDeps, applyCreateCall(call, apply), namespacesDef, own);
  }
  const patch = apply ? undefined : decodeBody(call.req, { patch: true });
  const name = call.path.name!;
  let warnings: string[] = [];
  const updated = await serializedFor(deps, call.def, () => updateOrRemove(deps, call.def, call.path.namespace, name, (current) => {
    const patched = (apply ? appliedObject(deps.fields, scope, current, apply, deps.clock.now()) : applyPatch(kind!, current, patch, call.def.kind)) as KubeObject;
    if (!patched || typeof patched !== 'object' || typeof patched.metadata !== 'object' || patched.metadata === null) {
      throw new KedgeError('BadRequest', 'the patched object has no metadata');
    }
    if (patched.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(call.def, name);
    checkTypeMeta(call.def, patched);
    warnings = judgePatched(deps.schemas, call.def, call.req, patched);
    return admitted(deps, call, prepareUpdate(call.def, patched, current, part), current, apply ? undefined : part);
  }));
  return withWarnings(jsonResponse(200, updated), warnings);
}

/**
 * DELETE: 200 with the object, removed or (with finalizers left) marked as being deleted;
 * 202 when it stays and the deprecated orphanDependents=false asked for cascading, as kube does.
 */
export async function deleteObject(realDeps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const deps = depsFor(realDeps, call.req);
  const options = deleteOptionsOf(call.req);
  const { object, deleted } = await deleteOne(deps, call.def, call.path.namespace, call.path.name!, options);
  return jsonResponse(!deleted && options.orphanDependents === false ? 202 : 200, object);
}

/** Each selected object is deleted by the same rules as a single DELETE. */
export async function deleteCollection(realDeps: RestDeps, call: ResourceCall): Promise<ApiResponse> {
  const deps = depsFor(realDeps, call.req);
  const options = deleteOptionsOf(call.req);
  const matches = selectorOf(call);
  const { items } = await deps.storage.list(call.def, call.path.namespace);
  const selected = items.filter(matches);
  const immortal = isNamespaces(call.def) ? selected.find((ns) => IMMORTAL_NAMESPACES.has(ns.metadata.name!)) : undefined;
  if (immortal) throw immortalNamespace(immortal.metadata.name!);
  const results: KubeObject[] = [];
  for (const obj of selected) {
    const outcome = await deleteOne(deps, call.def, obj.metadata.namespace, obj.metadata.name!, options).catch(ignoreNotFound);
    if (outcome) results.push(outcome.object);
  }
  return jsonResponse(200, { kind: `${call.def.kind}List`, apiVersion: apiVersionOf(call.def), metadata: {}, items: results });
}

function ignoreNotFound(err: unknown): DeleteOutcome | undefined {
  if (isKedgeError(err, 'NotFound')) return undefined;
  throw err;
}

/** The request's object as a write takes it: decoded, its kind and apiVersion set, unknown fields dropped; and the warnings. */
function judgedBody(deps: RestDeps, call: ResourceCall, options: 'CreateOptions' | 'UpdateOptions'): { body: KubeObject; warnings: string[] } {
  const body = decodeObject(call.req);
  checkTypeMeta(call.def, body);
  return { body, warnings: judgeBody(deps.schemas, call.def, call.req, body, options) };
}

/**
 * The request's object, one of its own for each attempt of a write: the first takes `judged`
 * (parsed for this request, shared with nothing); a retry takes `again()`, the body decoded and
 * judged anew, since the attempt before changed (and may have stored) what it took.
 */
function bodyPerAttempt(judged: KubeObject, again: () => KubeObject): () => KubeObject {
  let unused: KubeObject | undefined = judged;
  return () => {
    const body = unused ?? again();
    unused = undefined;
    return body;
  };
}

/** Prepared and admitted; with `updatePart`, the request's Update recorded in managedFields (an apply recorded its own). */
async function admitted(deps: RestDeps, call: ResourceCall, next: KubeObject, current: KubeObject, updatePart?: Part): Promise<KubeObject> {
  const ctx: AdmissionContext = { operation: 'update', now: deps.clock.now(), old: current, user: call.user, ...(updatePart === 'status' && { subresource: 'status' as const }) };
  await prepareObject(deps, call.def, next, ctx);
  admit(call.def, next, ctx);
  if (updatePart === undefined) return next;
  return deps.fields.recordUpdate(call, current, next, ctx.now, updatePart === 'status' ? 'status' : undefined);
}

/** The path's namespace; a namespaced create on the all-namespaces path uses the body's, or "default". */
function namespaceFor(call: ResourceCall, obj: KubeObject): string {
  checkNamespaceMatch(call, obj);
  return call.path.namespace ?? obj.metadata.namespace ?? 'default';
}

function checkNamespaceMatch(call: ResourceCall, obj: KubeObject): void {
  const inBody = obj.metadata.namespace;
  if (call.def.namespaced && call.path.namespace !== undefined && inBody && inBody !== call.path.namespace) {
    throw new KedgeError('BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
  }
}

async function requireActiveNamespace(deps: RestDeps, namespacesDef: ResourceDef, namespace: string): Promise<void> {
  let ns: Namespace;
  try {
    ns = (await deps.storage.get(namespacesDef, undefined, namespace)) as Namespace;
  } catch (err) {
    if (isKedgeError(err, 'NotFound')) throw notFound(namespacesDef, namespace);
    throw err;
  }
  if (ns.status?.phase === 'Terminating' || ns.metadata.deletionTimestamp) {
    throw new KedgeError('Forbidden', `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}
