import type { KubeObject } from '../../../shared/types.js';
import type { ApiResource } from '../../client/api-resource.js';
import { ownerReferencesOf, type GraphEntry } from './object-ref.js';

/**
 * What the garbage collector sees of the cluster: every watched object by uid, and who
 * depends on whom (owner uid → dependent uids). An owner need not be known itself: its
 * dependents are indexed under the uid their ownerReferences name.
 */
export class OwnerGraph {
  private readonly entries = new Map<string, GraphEntry>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.entries.size;
  }

  get(uid: string): GraphEntry | undefined {
    return this.entries.get(uid);
  }

  /** Records the object's latest version; returns the owner uids it no longer refers to. */
  set(def: ApiResource, object: KubeObject): string[] {
    const uid = object.metadata.uid!;
    const before = ownerUids(this.entries.get(uid)?.object);
    const after = ownerUids(object);
    this.entries.set(uid, { def, object });
    for (const owner of after) this.link(owner, uid);
    const dropped = before.filter((owner) => !after.includes(owner));
    for (const owner of dropped) this.unlink(owner, uid);
    return dropped;
  }

  delete(object: KubeObject): void {
    const uid = object.metadata.uid!;
    for (const owner of ownerUids(this.entries.get(uid)?.object ?? object)) this.unlink(owner, uid);
    this.entries.delete(uid);
  }

  /** The known objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): GraphEntry[] {
    const out: GraphEntry[] = [];
    for (const dep of this.dependents.get(uid) ?? []) {
      const entry = this.entries.get(dep);
      if (entry) out.push(entry);
    }
    return out;
  }

  hasDependents(uid: string): boolean {
    return (this.dependents.get(uid)?.size ?? 0) > 0;
  }

  private link(owner: string, dependent: string): void {
    let set = this.dependents.get(owner);
    if (!set) this.dependents.set(owner, (set = new Set()));
    set.add(dependent);
  }

  private unlink(owner: string, dependent: string): void {
    const set = this.dependents.get(owner);
    if (!set) return;
    set.delete(dependent);
    if (set.size === 0) this.dependents.delete(owner);
  }
}

function ownerUids(object: KubeObject | undefined): string[] {
  return object ? ownerReferencesOf(object).map((r) => r.uid) : [];
}
