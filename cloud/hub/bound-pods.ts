import type { Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';

/** A live pod's namespace and name, and the node it is bound to (none while pending). */
export interface BoundPod {
  namespace: string;
  name: string;
  node: string | undefined;
}

/**
 * The node each live pod is bound to (from the hub's pod cache), and the newest statusVersion
 * applied to it [SYNC-12], so that a status overtaken by a newer one (a late re-send after a
 * reconnect) is dropped. An entry lives exactly as long as its pod in the cache: a status
 * for a uid the cache does not hold records nothing, whether it names no pod at all or
 * arrives after its pod's DELETED event (the last status of a pod deleted on its report). So
 * the table holds the live pods, however many uids nodes make up. Kept in memory: after a
 * cloud restart the edge re-sends only its newest pending status per pod.
 */
export class BoundPods {
  private readonly byUid = new Map<string, BoundPod & { statusVersion: number }>();

  onPodEvent(event: CacheEvent<Pod>): void {
    if (event.type === 'SYNCED') return;
    const uid = event.object.metadata.uid;
    if (!uid) return;
    if (event.type === 'DELETED') {
      this.byUid.delete(uid);
      return;
    }
    const node = event.object.spec.nodeName;
    const entry = this.byUid.get(uid);
    if (entry) entry.node = node;
    else this.byUid.set(uid, { namespace: event.object.metadata.namespace ?? 'default', name: event.object.metadata.name ?? '', node, statusVersion: -1 });
  }

  /** Whether the cache holds a pod with this uid. */
  has(uid: string): boolean {
    return this.byUid.has(uid);
  }

  /** The node the pod is bound to; undefined when it is not bound, or unknown. */
  nodeOf(uid: string): string | undefined {
    return this.byUid.get(uid)?.node;
  }

  /** The live pod with this uid, as the cache holds it; undefined when there is none. */
  podOf(uid: string): BoundPod | undefined {
    const entry = this.byUid.get(uid);
    return entry && { namespace: entry.namespace, name: entry.name, node: entry.node };
  }

  /** Whether a status with this version may be applied (versions are optional on the wire). */
  isNewer(uid: string, version: number | undefined): boolean {
    return version === undefined || version > (this.byUid.get(uid)?.statusVersion ?? -1);
  }

  /** Notes an applied status; nothing for a pod the cache no longer holds. */
  record(uid: string, version: number | undefined): void {
    const entry = this.byUid.get(uid);
    if (entry && version !== undefined) entry.statusVersion = Math.max(version, entry.statusVersion);
  }

  get size(): number {
    return this.byUid.size;
  }
}
