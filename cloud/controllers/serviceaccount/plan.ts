import type { KubeObject, Namespace } from '../../../shared/types.js';

/** What one namespace's object made by a controller (its `default` ServiceAccount, its kube-root-ca.crt) needs. */
export type NamespaceObjectAction = { type: 'none' } | { type: 'create'; object: KubeObject } | { type: 'update'; object: KubeObject };

/**
 * Pure: an active namespace gets the desired object when it has none, and has it put back as
 * desired when `current` (the stored one) says it differs; a namespace gone or being deleted
 * gets nothing (kube's controllers skip terminating namespaces).
 */
export function planNamespaceObject(
  ns: Namespace | undefined,
  existing: KubeObject | undefined,
  desired: KubeObject,
  current: (existing: KubeObject) => boolean,
): NamespaceObjectAction {
  if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return { type: 'none' };
  if (!existing) return { type: 'create', object: desired };
  if (current(existing)) return { type: 'none' };
  return { type: 'update', object: { ...existing, ...desired, metadata: { ...existing.metadata, ...desired.metadata } } };
}
