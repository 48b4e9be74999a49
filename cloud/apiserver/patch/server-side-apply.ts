import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { checkTypeMeta } from '../rest/server-metadata.js';
import { decodeObject } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';
import { strategicMerge } from './strategic-merge.js';
import type { FieldOwnership } from '../fields/field-ownership.js';
import type { FieldScope } from '../fields/field-manager.js';
import type { MetaWithManagedFields } from '../fields/managed-fields.js';

/**
 * Server-side apply (PATCH with application/apply-patch+yaml): the applied configuration
 * creates the object when it is absent, else merges onto the live object with the kind's
 * merge keys; field ownership (fields/field-apply.ts) then prunes what the manager stopped
 * applying and refuses changes to other managers' fields unless forced.
 */

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export interface ApplyRequest {
  manager: string;
  /** `force=true`: take other managers' fields instead of failing with a conflict. */
  force: boolean;
  /** The applied configuration, its name and namespace checked against the URL. */
  config: KubeObject;
}

/** The manager (required for apply, as in kube) and the decoded configuration (YAML or JSON). */
export function applyRequestOf(call: ResourceCall): ApplyRequest {
  const manager = call.req.query.get('fieldManager') ?? '';
  if (manager === '') throw new KedgeError('Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const config = decodeObject(call.req);
  checkTypeMeta(call.def, config);
  const name = call.path.name!;
  if (config.metadata.name !== undefined && config.metadata.name !== name) {
    throw new KedgeError('BadRequest', `the name of the object (${config.metadata.name}) does not match the name on the URL (${name})`);
  }
  config.metadata.name = name;
  if ((config.metadata as MetaWithManagedFields).managedFields !== undefined) {
    throw new KedgeError('BadRequest', 'metadata.managedFields must be nil');
  }
  return { manager, force: call.req.query.get('force') === 'true', config };
}

/** Whether the object to apply to exists (then it is merged onto, else created). */
export async function applyTargetExists(deps: RestDeps, call: ResourceCall): Promise<boolean> {
  return deps.storage.get(call.def, call.path.namespace, call.path.name!).then(
    () => true,
    (err: unknown) => {
      if (isKedgeError(err, 'NotFound')) return false;
      throw err;
    },
  );
}

/** The request that creates the object: the configuration as a JSON POST body. */
export function applyCreateCall(call: ResourceCall, apply: ApplyRequest): ResourceCall {
  const headers = { ...call.req.headers, 'content-type': 'application/json' };
  return { ...call, req: { ...call.req, headers, body: Buffer.from(JSON.stringify(apply.config)) } };
}

/** The object an apply leaves: the configuration merged onto `live` (absent on create), owned and pruned. */
export function appliedObject(fields: FieldOwnership, scope: FieldScope, live: KubeObject | undefined, apply: ApplyRequest, now: number): KubeObject {
  const merged = live ? (strategicMerge(live, apply.config, scope.schema) as unknown as KubeObject) : structuredClone(apply.config);
  return fields.apply({ scope, live, config: apply.config, merged, manager: apply.manager, force: apply.force, now });
}
