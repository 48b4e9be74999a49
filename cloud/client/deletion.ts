import type { KubeObject } from '../../shared/types.js';

/** Deletion as an object shows it: the finalizers the garbage collector and namespace controller act on, and the deletion mark. */

/** The garbage collector orphans the dependents, then removes this finalizer. */
export const ORPHAN_FINALIZER = 'orphan';
/** The garbage collector deletes the blocking dependents first, then removes this finalizer. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** spec.finalizers of a namespace: the namespace controller removes it once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

export function isDeleting(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}
