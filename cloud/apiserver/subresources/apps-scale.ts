import type { LabelSelector, Scale } from '../../../shared/apps-types.js';
import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import { selectorString } from '../../../shared/label-selector.js';
import type { KubeObject } from '../../../shared/types.js';
import { admit, invalid, invalidValue } from '../admission/admission.js';
import { prepareUpdate } from '../rest/server-metadata.js';
import { applyPatch, patchKindOf } from '../patch/patch.js';
import type { ResourceDef } from '../kinds/registry.js';
import { jsonResponse, mediaType, methodNotAllowed, type ApiResponse } from '../request.js';
import { decodeBody, decodeObject } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';
import { conflict } from '../rest/storage.js';

/**
 * The `scale` subresource (autoscaling/v1 Scale) of Deployments and ReplicaSets: a view of
 * spec.replicas that `kubectl scale` and autoscalers read and write. Writing it changes the
 * parent's spec.replicas, which bumps its generation like any spec change.
 */
interface Scalable extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector };
  status?: { replicas?: number };
}

const SCALE_API_VERSION = 'autoscaling/v1';

export function scaleOf(parent: KubeObject): Scale {
  const p = parent as Scalable;
  const { name, namespace, uid, resourceVersion, creationTimestamp } = p.metadata;
  return {
    kind: 'Scale',
    apiVersion: SCALE_API_VERSION,
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: p.spec?.replicas ?? 0 },
    status: { replicas: p.status?.replicas ?? 0, selector: selectorString(p.spec?.selector) },
  };
}

export async function serveScale(deps: RestDeps, call: ResourceCall & { verb: string }): Promise<ApiResponse> {
  const name = call.path.name!;
  switch (call.verb) {
    case 'get':
      return jsonResponse(200, scaleOf(await deps.storage.get(call.def, call.path.namespace, name)));
    case 'update': {
      const body = decodeObject(call.req) as Scale;
      checkScaleBody(body, name);
      return writeScale(deps, call, () => body);
    }
    case 'patch': {
      const kind = patchKindOf(mediaType(call.req.headers['content-type']));
      if (!kind) throw new KedgeError('UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json');
      const patch = decodeBody(call.req, { patch: true });
      return writeScale(deps, call, (current) => applyPatch(kind, current, patch) as Scale);
    }
    default:
      throw methodNotAllowed(call.req.method, call.req.path);
  }
}

/** Reads the parent, derives the wanted Scale from its current one, and writes spec.replicas back. */
async function writeScale(deps: RestDeps, call: ResourceCall, wanted: (current: Scale) => Scale): Promise<ApiResponse> {
  const { def } = call;
  const name = call.path.name!;
  const updated = await deps.storage.guaranteedUpdate(def, call.path.namespace, name, (current) => {
    const scale = wanted(scaleOf(current));
    if (!scale || typeof scale !== 'object') throw new KedgeError('BadRequest', 'the patched object is not a Scale');
    const expected = scale.metadata?.resourceVersion;
    if (expected && expected !== current.metadata.resourceVersion) throw conflict(def, name);
    const replicas = scale.spec?.replicas ?? 0;
    const causes = validateReplicas(replicas);
    if (causes.length > 0) throw invalid({ kind: 'Scale', group: 'autoscaling' }, name, causes);
    return deps.fields.recordUpdate(call, current, withReplicas(def, current, replicas, deps.clock.now()), deps.clock.now(), 'scale');
  });
  return jsonResponse(200, scaleOf(updated));
}

function withReplicas(def: ResourceDef, current: KubeObject, replicas: number, now: number): KubeObject {
  const next = structuredClone(current) as Scalable;
  next.spec = { ...next.spec, replicas };
  const out = prepareUpdate(def, next, current, 'main');
  admit(def, out, { operation: 'update', now, old: current });
  return out;
}

function validateReplicas(replicas: unknown): StatusCause[] {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) return [invalidValue('spec.replicas', replicas, 'must be an integer')];
  return replicas < 0 ? [invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0')] : [];
}

function checkScaleBody(body: Scale, name: string): void {
  if (body.kind !== undefined && body.kind !== 'Scale') {
    throw new KedgeError('BadRequest', `the kind in the data (${body.kind}) does not match the expected kind (Scale)`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== SCALE_API_VERSION) {
    throw new KedgeError('BadRequest', `the API version in the data (${body.apiVersion}) does not match the expected API version (${SCALE_API_VERSION})`);
  }
  if (body.metadata.name !== undefined && body.metadata.name !== name) {
    throw new KedgeError('BadRequest', `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
  }
}
