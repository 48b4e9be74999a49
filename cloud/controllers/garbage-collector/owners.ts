import type { KubeObject, OwnerReference } from '../../../shared/types.js';
import type { ResourceRef } from '../../client/client.js';
import type { ApiResource } from '../../client/api-resource.js';
import type { OwnerGraph } from './graph.js';
import { ownerDef, ownerReferencesOf, resourceRef, type GraphEntry } from './object-ref.js';
import { stateOfOwner, type OwnerState, type ResolvedOwner } from './plan.js';

/** What the collector knows about owners: the graph, the resource table, and uids found gone. */
export interface OwnerView {
  graph: OwnerGraph;
  resources: readonly ApiResource[];
  /** Owner uids a live read found gone (a uid never comes back). */
  absent: Set<string>;
}

/** Reads one object live; undefined when it does not exist. */
export type LiveGet = (ref: ResourceRef) => Promise<KubeObject | undefined>;

const MAX_ABSENT = 10_000;

/**
 * One owner's state from the cache, or undefined when only a live read can tell. References
 * the collector cannot resolve (an unknown kind, a namespaced owner of a cluster-scoped object)
 * count as solid: such dependents are left alone, as kube does.
 */
export function cachedOwnerState(view: OwnerView, dependent: GraphEntry, ref: OwnerReference): OwnerState | undefined {
  const def = ownerDef(view.resources, ref);
  if (!def || (def.namespaced && !dependent.def.namespaced)) return 'solid';
  if (view.absent.has(ref.uid)) return 'dangling';
  const owner = view.graph.get(ref.uid);
  if (!owner || (def.namespaced && owner.object.metadata.namespace !== dependent.object.metadata.namespace)) return undefined;
  return stateOfOwner(owner.object);
}

/** Whether a dependent is worth a look: one of its owners is not known to be solid. */
export function needsLook(view: OwnerView, dependent: GraphEntry): boolean {
  return ownerReferencesOf(dependent.object).some((ref) => cachedOwnerState(view, dependent, ref) !== 'solid');
}

/**
 * Every owner's state: from the cache, else from a live read by name, where NotFound or another
 * uid (the owner was recreated under the same name) means dangling.
 */
export async function resolveOwners(view: OwnerView, dependent: GraphEntry, getLive: LiveGet): Promise<ResolvedOwner[]> {
  const out: ResolvedOwner[] = [];
  for (const ref of ownerReferencesOf(dependent.object)) {
    const cached = cachedOwnerState(view, dependent, ref);
    out.push({ ref, state: cached ?? (await liveOwnerState(view, dependent, ref, getLive)) });
  }
  return out;
}

async function liveOwnerState(view: OwnerView, dependent: GraphEntry, ref: OwnerReference, getLive: LiveGet): Promise<OwnerState> {
  const def = ownerDef(view.resources, ref)!;
  const live = await getLive(resourceRef(def, dependent.object.metadata.namespace, ref.name));
  if (live && live.metadata.uid === ref.uid) return stateOfOwner(live);
  if (view.absent.size >= MAX_ABSENT) view.absent.clear();
  view.absent.add(ref.uid);
  return 'dangling';
}
