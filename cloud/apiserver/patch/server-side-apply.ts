import { KedgeError, isKedgeError } from '../../../shared/errors.js';
import type { KubeObject, ObjectMeta } from '../../../shared/types.js';
import { checkTypeMeta } from '../rest/server-metadata.js';
import { stableJson, timestamp } from '../../client/object-meta.js';
import { patchStrategies } from './patch-strategies.js';
import { apiVersionOf, type ResourceDef } from '../kinds/registry.js';
import { decodeObject } from '../http/request-body.js';
import type { ResourceCall, RestDeps } from '../rest/rest-context.js';
import { strategicMerge } from './strategic-merge.js';

/**
 * Server-side apply (PATCH with application/apply-patch+yaml), without field ownership: the
 * applied configuration creates the object when it is absent, else merges onto the live
 * object with the kind's strategic merge keys, so fields it does not mention stay. Each
 * manager gets one `metadata.managedFields` entry (operation Apply, an empty field set).
 */

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, never>;
}

type MetaWithManagedFields = ObjectMeta & { managedFields?: ManagedFieldsEntry[] };

export interface ApplyRequest {
  manager: string;
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
  delete (config.metadata as MetaWithManagedFields).managedFields;
  return { manager, config };
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

/** The request that creates the object: the configuration with the manager's entry, as a JSON POST body. */
export function applyCreateCall(call: ResourceCall, apply: ApplyRequest, now: number): ResourceCall {
  const obj = structuredClone(apply.config);
  withManager(obj, apply.manager, apiVersionOf(call.def), timestamp(now));
  const headers = { ...call.req.headers, 'content-type': 'application/json' };
  return { ...call, req: { ...call.req, headers, body: Buffer.from(JSON.stringify(obj)) } };
}

/**
 * The live object with the configuration merged on. The manager's entry keeps its time when
 * nothing else changes, so that applying the same configuration again writes nothing.
 */
export function appliedObject(def: ResourceDef, current: KubeObject, apply: ApplyRequest, now: number): KubeObject {
  const merged = strategicMerge(current, apply.config, patchStrategies[def.kind] ?? {}) as unknown as KubeObject;
  const entry = managedFieldsOf(current).find((e) => e.manager === apply.manager && e.operation === 'Apply');
  const changed = stableJson(merged) !== stableJson(current);
  withManager(merged, apply.manager, apiVersionOf(def), changed || !entry ? timestamp(now) : entry.time);
  return merged;
}

function managedFieldsOf(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata as MetaWithManagedFields).managedFields ?? [];
}

function withManager(obj: KubeObject, manager: string, apiVersion: string, time: string): void {
  const entry: ManagedFieldsEntry = { manager, operation: 'Apply', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: {} };
  const entries = [...managedFieldsOf(obj)];
  const at = entries.findIndex((e) => e.manager === manager && e.operation === 'Apply');
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  (obj.metadata as MetaWithManagedFields).managedFields = entries;
}
