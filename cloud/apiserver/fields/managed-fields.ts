import type { KubeObject, ObjectMeta } from '../../../shared/types.js';
import { fromFieldsV1, isEmpty, toFieldsV1, type FieldSet } from './field-set.js';

/** metadata.managedFields: one entry per manager, operation, apiVersion and subresource. */

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: Operation;
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export type MetaWithManagedFields = ObjectMeta & { managedFields?: ManagedFieldsEntry[] };

/** Who manages a set, as kube identifies a manager (its time aside). */
export interface ManagerId {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource?: string;
}

export interface Manager extends ManagerId {
  time?: string;
  set: FieldSet;
}

/**
 * The stored fieldsV1 each set was decoded from. Sets are not changed once built, and a write
 * that leaves a manager's fields alone keeps its set (field-set.ts difference), so an unchanged
 * manager is written back as it was stored, without encoding it again.
 */
const storedEncodings = new WeakMap<FieldSet, Record<string, unknown>>();

/** Managers by identity (managerKey). */
export type Managers = Map<string, Manager>;

export function managerKey(id: ManagerId): string {
  return JSON.stringify([id.manager, id.operation, id.apiVersion, id.subresource ?? '']);
}

export function managedFieldsOf(obj: KubeObject | undefined): ManagedFieldsEntry[] | undefined {
  return (obj?.metadata as MetaWithManagedFields | undefined)?.managedFields;
}

/** `managedFields: []` or `[{}]` in a request clears them, as in kube. */
export function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  return entries.length === 0 || (entries.length === 1 && typeof entries[0] === 'object' && entries[0] !== null && Object.keys(entries[0] as object).length === 0);
}

/**
 * The entries as managers; undefined when absent, empty or not valid managedFields. `stored`:
 * they are a stored object's, which kedge encoded itself, so each is written back unchanged
 * (a request's own may be in any order, and are encoded again).
 */
export function decodeManagers(entries: unknown, stored = false): Managers | undefined {
  if (!Array.isArray(entries) || entries.length === 0) return undefined;
  const managers: Managers = new Map();
  for (const entry of entries as ManagedFieldsEntry[]) {
    const set = fromFieldsV1(entry?.fieldsV1 ?? {});
    const valid = typeof entry?.manager === 'string' && (entry.operation === 'Apply' || entry.operation === 'Update') && typeof entry.apiVersion === 'string';
    if (!set || !valid) return undefined;
    if (stored && entry.fieldsV1) storedEncodings.set(set, entry.fieldsV1);
    const manager: Manager = { manager: entry.manager!, operation: entry.operation!, apiVersion: entry.apiVersion!, set };
    if (entry.subresource) manager.subresource = entry.subresource;
    if (entry.time) manager.time = entry.time;
    managers.set(managerKey(manager), manager);
  }
  return managers;
}

/** The entries kube would write: empty sets dropped, sorted by operation, time, manager, apiVersion, subresource. */
export function encodeManagers(managers: Managers): ManagedFieldsEntry[] {
  const kept = [...managers.values()].filter((m) => !isEmpty(m.set));
  kept.sort((a, b) => compareBy(a.operation, b.operation) || compareBy(a.time ?? '', b.time ?? '') || compareBy(a.manager, b.manager) || compareBy(a.apiVersion, b.apiVersion) || compareBy(a.subresource ?? '', b.subresource ?? ''));
  return kept.map((m) => {
    const entry: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
    if (m.time) entry.time = m.time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = storedEncodings.get(m.set) ?? toFieldsV1(m.set);
    if (m.subresource) entry.subresource = m.subresource;
    return entry;
  });
}

function compareBy(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function setManagedFields(obj: KubeObject, entries: ManagedFieldsEntry[]): void {
  const meta = obj.metadata as MetaWithManagedFields;
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
}

/** kube's printManager: `"kubectl-scale" with subresource "scale" using apps/v1` (an Apply manager: just its name). */
export function printManager(id: ManagerId): string {
  let out = JSON.stringify(id.manager);
  if (id.subresource) out += ` with subresource ${JSON.stringify(id.subresource)}`;
  return id.operation === 'Update' ? `${out} using ${id.apiVersion}` : out;
}

/** The manager of a request without fieldManager: the user agent up to its first `/`, as kube does. */
export function managerOrUserAgent(fieldManager: string | null | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  return (userAgent ?? '').split('/')[0]!.slice(0, 128);
}
