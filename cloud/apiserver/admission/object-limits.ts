import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import { jsonByteLength } from '../../../shared/json-bytes.js';
import { pathBeyond } from '../../../shared/json-depth.js';
import { MAX_OBJECT_BYTES, MAX_OBJECT_NESTING } from '../../../shared/protocol/limits.js';
import type { KubeObject } from '../../../shared/types.js';
import type { ResourceDef } from '../kinds/registry.js';

/**
 * What the API stores must fit what the sync carries to edges (shared/protocol/limits.ts),
 * whatever wrote it: a create, an update, a patch that deepens or grows an object, a status.
 * Otherwise an accepted object would never reach its edge and be sent again for ever.
 */

/** The cause (422) for an object nested deeper than MAX_OBJECT_NESTING, naming where; empty when it is not. */
export function nestingCauses(obj: KubeObject): StatusCause[] {
  const field = pathBeyond(withoutManagedFields(obj), MAX_OBJECT_NESTING);
  return field === undefined ? [] : [{ reason: 'FieldValueTooLong', field, message: `Too deep: must have at most ${MAX_OBJECT_NESTING} levels of nesting (what the sync carries to edges)` }];
}

/** managedFields never go to an edge, and their fieldsV1 nest a few levels deeper than the fields they name. */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (!('managedFields' in obj.metadata)) return obj;
  const { managedFields: _owners, ...metadata } = obj.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return { ...obj, metadata };
}

/** 413 for an object larger than MAX_OBJECT_BYTES as JSON. */
export function checkObjectSize(def: Pick<ResourceDef, 'kind' | 'group' | 'resource'>, obj: KubeObject): void {
  const bytes = jsonByteLength(obj);
  if (bytes <= MAX_OBJECT_BYTES) return;
  const name = obj.metadata.name ?? '';
  throw new KedgeError('TooLarge', `Request entity too large: ${def.kind} "${name}" is ${bytes} bytes as JSON; the limit is ${MAX_OBJECT_BYTES} (what the sync carries to edges)`, {
    details: { name, group: def.group, kind: def.resource },
  });
}
