import { jsonEqual } from '../../../shared/json-equal.js';
import type { KubeObject } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { apiVersionOf, hasSubresource, type ResourceDef } from '../kinds/registry.js';
import { patchStrategies, type TypeStrategy } from '../patch/patch-strategies.js';
import { difference, emptySet, isEmpty, union, type FieldSet } from './field-set.js';
import { compare, fieldSetOf, type Comparison } from './field-walk.js';
import {
  decodeManagers, encodeManagers, isReset, managedFieldsOf, managerKey, setManagedFields,
  type ManagerId, type Managers,
} from './managed-fields.js';

/**
 * Field ownership on every write, as kube-apiserver's field manager keeps it: an Update
 * (create, update, patch) gives its manager the fields it added or changed and takes them from
 * the others; status and the server's own metadata are not owned through the main resource.
 */

export type Subresource = 'status' | 'scale';

/** The server's metadata, never owned (kube's stripMeta). */
const STRIPPED_META = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink', 'managedFields'];

/** What the kind's writes to `subresource` own. */
export interface FieldScope {
  def: ResourceDef;
  schema: TypeStrategy;
  subresource?: Subresource;
}

export function scopeOf(def: ResourceDef, subresource?: Subresource): FieldScope {
  return { def, schema: patchStrategies[def.kind] ?? {}, subresource };
}

/** The part of `obj` that writes through the scope own: status alone, or all but status (when it is a subresource) and server metadata. */
export function ownedPart(scope: FieldScope, obj: KubeObject | undefined): Record<string, unknown> {
  if (!obj) return {};
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj as KubeObject & { status?: unknown };
  if (scope.subresource === 'status') return rest.status === undefined ? {} : { status: rest.status };
  if (hasSubresource(scope.def, 'status')) delete rest.status;
  const meta: Record<string, unknown> = { ...metadata };
  for (const key of STRIPPED_META) delete meta[key];
  return Object.keys(meta).length > 0 ? { metadata: meta, ...rest } : rest;
}

export function compareOwned(scope: FieldScope, live: KubeObject | undefined, next: KubeObject): Comparison {
  const after = ownedPart(scope, next);
  return compare(live ? ownedPart(scope, live) : zeroOf(after), after, scope.schema);
}

/** What a create compares with: kube's empty object of the kind, whose top-level structs exist (empty). */
function zeroOf(obj: Record<string, unknown>): Record<string, unknown> {
  const zero: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) if (typeof value === 'object' && value !== null && !Array.isArray(value)) zero[key] = {};
  return zero;
}

export function idOf(scope: FieldScope, manager: string, operation: ManagerId['operation']): ManagerId {
  const id: ManagerId = { manager, operation, apiVersion: apiVersionOf(scope.def) };
  if (scope.subresource) id.subresource = scope.subresource;
  return id;
}

/**
 * Records an Update by `manager` on `next` (the object about to be stored). The request's own
 * managedFields, when it sets valid ones, replace the live ones (kubectl's migration from
 * client-side apply writes them so); `[]` or `[{}]` clears them.
 */
export function recordUpdate(scope: FieldScope, live: KubeObject | undefined, next: KubeObject, manager: string, now: number): void {
  const requested = managedFieldsOf(next);
  if (!scope.subresource && isReset(requested)) {
    setManagedFields(next, []);
    return;
  }
  const stored = managedFieldsOf(live);
  // A request that sends back the live managedFields as it read them (kubectl edit, replace) sets nothing of its own.
  const own = scope.subresource || jsonEqual(requested, stored) ? undefined : decodeManagers(requested);
  const managers = own ?? decodeManagers(stored, true) ?? new Map();
  const changes = compareOwned(scope, live, next);
  const changed = union(changes.added, changes.modified);
  takeFromOthers(managers, '', changed, changes.removed);
  if (!isEmpty(changed)) {
    const id = idOf(scope, manager, 'Update');
    const key = managerKey(id);
    managers.set(key, { ...id, time: timestamp(now), set: union(managers.get(key)?.set ?? emptySet(), changed) });
  }
  setManagedFields(next, encodeManagers(managers));
}

/** Every manager but `except` loses `taken` and `removed`; those left with nothing go. */
export function takeFromOthers(managers: Managers, except: string, taken: FieldSet, removed: FieldSet): void {
  for (const [key, m] of managers) {
    if (key === except) continue;
    const set = difference(difference(m.set, taken), removed);
    if (set === m.set) continue;
    if (isEmpty(set)) managers.delete(key);
    else managers.set(key, { ...m, set });
  }
}

/** The fields of `obj` for a manager that created all of it (kube's `before-first-apply`). */
export function everythingOf(scope: FieldScope, obj: KubeObject): FieldSet {
  return compareOwned(scope, undefined, obj).added;
}

/** The fields an applied configuration sets. */
export function appliedFieldsOf(scope: FieldScope, config: KubeObject): FieldSet {
  return fieldSetOf(ownedPart(scope, config), scope.schema);
}
