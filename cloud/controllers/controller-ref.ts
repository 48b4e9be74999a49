import type { LabelSelector } from '../../shared/apps-types.js';
import { selectorMatches } from '../../shared/label-selector.js';
import type { KubeObject, OwnerReference } from '../../shared/types.js';

/**
 * Controller references (ownerReferences with controller: true) and the claim rules of
 * client-go's ControllerRefManager: keep what we own and still select, adopt orphans we
 * select, release what we own but no longer select.
 */

export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The reference a controller puts on what it creates or adopts. */
export function controllerRefTo(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

export interface Claim<T> {
  /** Ours and selected (including the orphans in `adopt`). */
  claimed: T[];
  adopt: T[];
  release: T[];
}

/** Sorts `candidates` into what `owner` keeps, adopts and releases. Pure. */
export function claim<T extends KubeObject>(owner: KubeObject, selector: LabelSelector | undefined, candidates: readonly T[]): Claim<T> {
  const out: Claim<T> = { claimed: [], adopt: [], release: [] };
  const ownerGone = Boolean(owner.metadata.deletionTimestamp);
  for (const obj of candidates) {
    const ref = controllerRefOf(obj);
    const selected = selectorMatches(selector, obj.metadata.labels);
    if (ref) {
      if (ref.uid !== owner.metadata.uid) continue;
      if (selected) out.claimed.push(obj);
      else if (!ownerGone) out.release.push(obj);
    } else if (selected && !ownerGone && !obj.metadata.deletionTimestamp) {
      out.claimed.push(obj);
      out.adopt.push(obj);
    }
  }
  return out;
}

/** The merge patch that makes `owner` the controller of `obj` (compare-and-set on its resourceVersion). */
export function adoptPatch(obj: KubeObject, ref: OwnerReference): unknown {
  const others = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  return { metadata: { resourceVersion: obj.metadata.resourceVersion, ownerReferences: [...others, ref] } };
}

/** The merge patch that drops `ownerUid` from `obj`'s owners. */
export function releasePatch(obj: KubeObject, ownerUid: string): unknown {
  const rest = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== ownerUid);
  return { metadata: { resourceVersion: obj.metadata.resourceVersion, ownerReferences: rest.length > 0 ? rest : null } };
}
