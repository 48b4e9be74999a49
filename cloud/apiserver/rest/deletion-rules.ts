import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject, Namespace } from '../../../shared/types.js';
import { invalid } from '../admission/admission.js';
import type { DeleteRequestOptions } from './delete-options.js';
import { timestamp } from '../../client/object-meta.js';
import type { ResourceDef } from '../kinds/registry.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, isDeleting } from '../../client/deletion.js';

/**
 * Kubernetes deletion rules, pure: which finalizers a DELETE leaves on an object, how an
 * object is marked as being deleted, when an update finishes a deletion, and what updates of
 * a deleting object may not do. The I/O around them is in rest-delete.ts.
 */

/** Namespaces the NamespaceLifecycle admission plugin refuses to delete. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export function isNamespaces(def: ResourceDef): boolean {
  return def.group === '' && def.resource === 'namespaces';
}

/** Whether the dependents should be orphaned: the options say so, else an orphan finalizer already does. */
export function shouldOrphan(finalizers: readonly string[], options: DeleteRequestOptions): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  return gcFinalizerIn(finalizers) === ORPHAN_FINALIZER;
}

/** Whether the dependents should go first: the options say Foreground, else a foreground finalizer already does. */
export function shouldDeleteForeground(finalizers: readonly string[], options: DeleteRequestOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  return gcFinalizerIn(finalizers) === FOREGROUND_FINALIZER;
}

function gcFinalizerIn(finalizers: readonly string[]): string | undefined {
  return finalizers.find((f) => f === ORPHAN_FINALIZER || f === FOREGROUND_FINALIZER);
}

/** The finalizers after a DELETE with `options` (kube's deletionFinalizersForGarbageCollection). */
export function finalizersAfterDelete(finalizers: readonly string[], options: DeleteRequestOptions): string[] {
  const out = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (shouldOrphan(finalizers, options)) out.push(ORPHAN_FINALIZER);
  if (shouldDeleteForeground(finalizers, options)) out.push(FOREGROUND_FINALIZER);
  return sameSet(out, finalizers) ? [...finalizers] : out;
}

/** Sets deletionTimestamp (kept when already set) and a zero grace period; bumps the generation once. Mutates `obj`. */
export function markAsDeleting(obj: KubeObject, now: number): void {
  const meta = obj.metadata;
  if (!isDeleting(obj)) {
    meta.deletionTimestamp = timestamp(now);
    if (meta.generation !== undefined && meta.generation > 0) meta.generation += 1;
  }
  meta.deletionGracePeriodSeconds = 0;
}

/** A namespace's first DELETE: Terminating, with the orphan/foreground finalizers the options ask for. Mutates `ns`. */
export function startTermination(ns: Namespace, options: DeleteRequestOptions, now: number): void {
  ns.metadata.deletionTimestamp ??= timestamp(now);
  ns.status = { ...ns.status, phase: 'Terminating' };
  const wanted = finalizersAfterDelete(ns.metadata.finalizers ?? [], options);
  if (wanted.length > 0) ns.metadata.finalizers = wanted;
  else delete ns.metadata.finalizers;
}

/** Whether an update of a deleting object removed its last finalizer, so it leaves the store. */
export function completesDeletion(def: ResourceDef, next: KubeObject, current: KubeObject): boolean {
  if ((next.metadata.finalizers?.length ?? 0) > 0 || !isDeleting(current)) return false;
  const grace = current.metadata.deletionGracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace !== 0) return false;
  return !isNamespaces(def) || ((next as Namespace).spec?.finalizers?.length ?? 0) === 0;
}

/**
 * What an update may not change about deletion: the grace period stays as the server set it,
 * and a deleting object gets no new finalizers. Mutates `next` (the object to store); throws
 * 422 Invalid.
 */
export function checkDeletionOnUpdate(def: ResourceDef, next: KubeObject, current: KubeObject): void {
  const grace = current.metadata.deletionGracePeriodSeconds;
  if (grace === undefined) delete next.metadata.deletionGracePeriodSeconds;
  else next.metadata.deletionGracePeriodSeconds = grace;
  if (!isDeleting(current)) return;
  const added = (next.metadata.finalizers ?? []).filter((f) => !(current.metadata.finalizers ?? []).includes(f));
  if (added.length === 0) return;
  throw invalid(def, next.metadata.name ?? '', [
    { reason: 'FieldValueForbidden', field: 'metadata.finalizers', message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStrings(added)}` },
  ]);
}

/** 403, as NamespaceLifecycle answers a DELETE of default, kube-system or kube-public. */
export function immortalNamespace(name: string): KedgeError {
  return new KedgeError('Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, {
    details: { name, group: '', kind: 'namespaces' },
  });
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** A string list the way Go's %#v prints []string, as kube's messages show it. */
function goStrings(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}
