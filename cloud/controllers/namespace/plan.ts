import type { KubeObject, Namespace } from '../../../shared/types.js';
import { NAMESPACE_FINALIZER, isDeleting } from '../../client/deletion.js';
import type { ApiResource } from '../../client/api-resource.js';

/** The objects of one namespaced kind found in the namespace. */
export interface NamespaceContent {
  def: ApiResource;
  items: readonly KubeObject[];
}

export type NamespaceAction =
  | { type: 'delete'; def: ApiResource; object: KubeObject }
  /** Objects remain (being deleted, or just asked to be): look again later. */
  | { type: 'wait'; remaining: number }
  /** PUT namespaces/<name>/finalize with these spec.finalizers ("kubernetes" taken out). */
  | { type: 'finalize'; finalizers: string[] }
  /** The namespace had no spec.finalizers: a second DELETE removes it. */
  | { type: 'deleteNamespace' };

/** Events go last: what deleting everything else records should not outlive the namespace either. */
export function isEventKind(def: ApiResource): boolean {
  return def.resource === 'events';
}

/**
 * A namespace being deleted and what is still in it (kube's namespaced resources deleter):
 * delete every object not yet being deleted — all kinds but events first, events after —
 * then, once nothing remains, take "kubernetes" out of spec.finalizers.
 */
export function planNamespace(ns: Namespace, contents: readonly NamespaceContent[]): NamespaceAction[] {
  if (!isDeleting(ns)) return [];
  const remaining = contents.reduce((n, c) => n + c.items.length, 0);
  const first = contents.filter((c) => !isEventKind(c.def) && c.items.length > 0);
  const phase = first.length > 0 ? first : contents.filter((c) => c.items.length > 0);
  if (phase.length > 0) {
    const deletes: NamespaceAction[] = phase.flatMap((c) => c.items.filter((o) => !isDeleting(o)).map((object) => ({ type: 'delete' as const, def: c.def, object })));
    return [...deletes, { type: 'wait', remaining }];
  }
  const finalizers = ns.spec?.finalizers ?? [];
  if (finalizers.includes(NAMESPACE_FINALIZER)) return [{ type: 'finalize', finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) }];
  return finalizers.length === 0 ? [{ type: 'deleteNamespace' }] : [];
}
