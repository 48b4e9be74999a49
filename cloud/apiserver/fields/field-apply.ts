import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { timestamp } from '../../client/object-meta.js';
import { difference, emptySet, insert, intersection, isEmpty, members, pathString, touches, union, type FieldSet } from './field-set.js';
import { fieldSetOf } from './field-walk.js';
import { appliedFieldsOf, compareOwned, everythingOf, idOf, ownedPart, takeFromOthers, type FieldScope } from './field-manager.js';
import { decodeManagers, encodeManagers, managedFieldsOf, managerKey, printManager, setManagedFields, type ManagerId, type Managers } from './managed-fields.js';
import { removePath } from './remove-path.js';

/**
 * Server-side apply's ownership (structured-merge-diff's Updater.Apply with kube's managers
 * around it): the applier owns exactly what its configuration sets; fields it set last time
 * and no longer does are removed unless another manager owns them; a change to a field another
 * manager owns is a conflict unless forced, and forcing takes the field over.
 */

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const BEFORE_FIRST_APPLY = 'before-first-apply';
/** Only kubectl's own manager upgrades from client-side apply (kube's lastAppliedManager). */
const KUBECTL_APPLY_MANAGER = 'kubectl';

export interface ApplyInput {
  scope: FieldScope;
  live: KubeObject | undefined;
  config: KubeObject;
  /** The live object with the configuration merged on. */
  merged: KubeObject;
  manager: string;
  force: boolean;
  now: number;
}

interface Conflict {
  id: ManagerId;
  path: string[];
}

/** The object to store: `merged`, pruned, with managedFields; throws 409 on conflicts. */
export function applyOwnership(input: ApplyInput): KubeObject {
  const { scope, live, now } = input;
  const managers = decodeManagers(managedFieldsOf(live), true) ?? new Map();
  if (live && managers.size === 0) {
    const id = idOf(scope, BEFORE_FIRST_APPLY, 'Update');
    managers.set(managerKey(id), { ...id, time: timestamp(now), set: everythingOf(scope, live) });
  }
  const id = idOf(scope, input.manager, 'Apply');
  const key = managerKey(id);
  const previous = managers.get(key);
  const applied = appliedFieldsOf(scope, input.config);
  const result = previous ? pruned(input.merged, managers, key, difference(previous.set, applied)) : input.merged;
  const changes = compareOwned(scope, live, result);
  const changed = union(changes.added, changes.modified);
  const conflicts = conflictsWith(managers, key, changed);
  if (conflicts.length > 0 && !input.force && !upgradesClientSideApply(input, conflicts)) throw applyConflict(conflicts);
  takeFromOthers(managers, key, changed, changes.removed);
  const objectChanged = !isEmpty(changed) || !isEmpty(changes.removed);
  managers.set(key, { ...id, time: objectChanged || !previous?.time ? timestamp(now) : previous.time, set: applied });
  if (input.manager === KUBECTL_APPLY_MANAGER) syncLastApplied(result, input.config);
  setManagedFields(result, encodeManagers(managers));
  return result;
}

/** Removes what the applier dropped, except what another manager still owns (at or below it). */
function pruned(merged: KubeObject, managers: Managers, key: string, dropped: FieldSet): KubeObject {
  if (isEmpty(dropped)) return merged;
  const others = [...managers].filter(([k]) => k !== key).map(([, m]) => m.set);
  const out = structuredClone(merged);
  for (const path of members(dropped)) {
    if (!others.some((set) => touches(set, path))) removePath(out as unknown as Record<string, unknown>, path);
  }
  return out;
}

function conflictsWith(managers: Managers, key: string, changed: FieldSet): Conflict[] {
  const out: Conflict[] = [];
  for (const [k, m] of [...managers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (k === key) continue;
    for (const path of members(intersection(m.set, changed))) out.push({ id: m, path });
  }
  return out;
}

/** kube's NewConflictError: 409 Conflict with one FieldManagerConflict cause per field. */
function applyConflict(conflicts: Conflict[]): KedgeError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.id)}`, field: pathString(c.path) }));
  return new KedgeError('Conflict', conflictMessage(conflicts), { details: { causes } });
}

function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.id)}: ${pathString(conflicts[0]!.path)}`;
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) byManager.set(managerKey(c.id), [...(byManager.get(managerKey(c.id)) ?? []), c]);
  const lines: string[] = [];
  for (const group of byManager.values()) {
    lines.push(`conflicts with ${printManager(group[0]!.id)}:`, ...group.map((c) => `- ${pathString(c.path)}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * `kubectl apply --server-side` over an object kubectl applied client-side: conflicts on fields
 * the last-applied annotation still holds as they are live are taken over (kube's lastAppliedManager).
 */
function upgradesClientSideApply(input: ApplyInput, conflicts: Conflict[]): boolean {
  const text = input.live?.metadata.annotations?.[LAST_APPLIED];
  if (input.manager !== KUBECTL_APPLY_MANAGER || !text) return false;
  let lastApplied: KubeObject;
  try {
    lastApplied = JSON.parse(text) as KubeObject;
    if (typeof lastApplied?.metadata !== 'object') return false;
  } catch {
    return false;
  }
  const { scope } = input;
  const allowed = difference(fieldSetOf(ownedPart(scope, lastApplied), scope.schema), compareOwned(scope, lastApplied, input.live!).modified);
  const conflicting = conflicts.reduce((set, c) => union(set, pathSet(c.path)), emptySet());
  return isEmpty(difference(conflicting, allowed));
}

function pathSet(path: string[]): FieldSet {
  const set = emptySet();
  insert(set, path);
  return set;
}

/** kube's lastAppliedUpdater: kubectl's server-side apply keeps an existing last-applied annotation current. */
function syncLastApplied(result: KubeObject, config: KubeObject): void {
  const annotations = result.metadata.annotations;
  if (!annotations?.[LAST_APPLIED]) return;
  const applied = structuredClone(config);
  if (applied.metadata.annotations) delete applied.metadata.annotations[LAST_APPLIED];
  annotations[LAST_APPLIED] = JSON.stringify(applied);
}
