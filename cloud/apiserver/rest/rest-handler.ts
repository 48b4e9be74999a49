import { METRICS_GROUP } from '../metrics/metrics-objects.js';
import { forwardPlain } from '../forward/hub-forward.js';
import { KedgeError } from '../../../shared/errors.js';
import type { UserInfo } from '../auth/authn.js';
import { serveScale } from '../subresources/apps-scale.js';
import { bindPod } from '../subresources/binding.js';
import { evictPod } from '../subresources/eviction.js';
import type { ResourcePath } from './paths.js';
import { allVerbs, hasSubresource, type ResourceDef, type ResourceRegistry } from '../kinds/registry.js';
import { methodNotAllowed, type ApiRequest, type ApiResponse } from '../request.js';
import type { ResourceCall, RestDeps } from './rest-context.js';
import { finalizeNamespace } from './rest-delete.js';
import { serveComputed } from './computed-resource.js';
import { podLog } from '../subresources/pod-log.js';
import { getObject, isTrue, listObjects, watchObjectsResponse } from './rest-read.js';
import { createObject, deleteCollection, deleteObject, patchObject, replaceObject } from './rest-write.js';

/** A resource request, routed: which kind, and which verb (RBAC words: get, list, watch, create, …). */
export interface RoutedCall extends ResourceCall {
  verb: string;
}

export function notFoundPath(): KedgeError {
  return new KedgeError('NotFound', 'the server could not find the requested resource', { details: {} });
}

/** kube-apiserver's answer to exec, attach or portforward without a connection upgrade (upgradeaware.go). */
function upgradeRequired(): KedgeError {
  return new KedgeError('BadRequest', 'Upgrade request required');
}

/** Finds the kind and the verb, or fails with 404 / 405 as kube-apiserver would. */
export function route(registry: ResourceRegistry, path: ResourcePath, req: ApiRequest, user: UserInfo): RoutedCall {
  const def = registry.find(path.group, path.version, path.resource);
  if (!def) throw notFoundPath();
  if (!def.namespaced && path.namespace !== undefined) throw notFoundPath();
  if (def.namespaced && path.namespace === undefined && path.name !== undefined) throw notFoundPath();
  if (path.subresource !== undefined && !hasSubresource(def, path.subresource)) throw notFoundPath();
  const verb = verbOf(req, path, def);
  return { def, path, req, user, verb };
}

function verbOf(req: ApiRequest, path: ResourcePath, def: ResourceDef): string {
  const method = req.method.toUpperCase();
  const named = path.name !== undefined;
  const watch = path.watchPrefix || isTrue(req.query.get('watch'));
  const sub = path.subresource;
  const allowed = (verb: string): string => {
    const verbs = sub === undefined ? (def.source ? allVerbs : (def.verbs ?? allVerbs)) : def.subresources.find((s) => s.name === sub)!.verbs;
    if (!verbs.includes(verb)) throw methodNotAllowed(method, req.path);
    return verb;
  };
  if (method === 'GET' || method === 'HEAD') return allowed(watch ? 'watch' : named ? 'get' : 'list');
  // /api/v1/watch/... serves GET only: a DELETE there is not a deletecollection.
  if (path.watchPrefix) throw methodNotAllowed(method, req.path);
  if (method === 'POST') return allowed(named && sub === undefined ? 'invalid' : 'create');
  if (!named) {
    if (method === 'DELETE') return allowed('deletecollection');
    throw methodNotAllowed(method, req.path);
  }
  if (method === 'PUT') return allowed('update');
  if (method === 'PATCH') return allowed('patch');
  if (method === 'DELETE') return allowed('delete');
  throw methodNotAllowed(method, req.path);
}

/** Runs the verb against storage. */
export async function serve(deps: RestDeps, registry: ResourceRegistry, call: RoutedCall): Promise<ApiResponse> {
  const part = call.path.subresource === 'status' ? 'status' : 'main';
  if (call.path.subresource === 'binding') return bindPod(deps, call);
  if (call.path.subresource === 'log') return podLog(deps, call);
  if (call.def.subresources.find((s) => s.name === call.path.subresource)?.connect) throw upgradeRequired();
  if (call.path.subresource === 'eviction') return evictPod(deps, call);
  if (call.path.subresource === 'finalize') return finalizeNamespace(deps, call);
  if (call.path.subresource === 'scale') return serveScale(deps, call);
  if (call.def.source) return (await forwardedMetrics(deps, call)) ?? serveComputed(deps, call, call.def.source);
  switch (call.verb) {
    case 'get':
      return getObject(deps, call);
    case 'list':
      return listObjects(deps, call);
    case 'watch':
      return watchObjectsResponse(deps, call);
    case 'create':
      return createObject(deps, call, registry.find('', 'v1', 'namespaces')!);
    case 'update':
      return replaceObject(deps, call, part);
    case 'patch':
      return patchObject(deps, call, part, registry.find('', 'v1', 'namespaces')!);
    case 'delete':
      return deleteObject(deps, call);
    case 'deletecollection':
      return deleteCollection(deps, call);
    default:
      throw methodNotAllowed(call.req.method, call.req.path);
  }
}

/** `kubectl top` on a standby cloud: the usage the edges report is at the hub's leader, which answers it. */
async function forwardedMetrics(deps: RestDeps, call: RoutedCall): Promise<ApiResponse | undefined> {
  if (call.def.group !== METRICS_GROUP || !deps.hubForward) return undefined;
  const leader = await deps.hubForward.target(call.req);
  return leader && forwardPlain(leader, call.req, deps.hubForward.caPem);
}
