import { podReferences } from '../../shared/pod-references.js';
import type { SyncedKind, SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import type { CacheEvent } from '../informer/informer.js';
import { desiredOf, type Desired } from './resync.js';

/**
 * The kinds the cloud syncs to a node with the pods that reference them [SYNC-18]: a pod names
 * ConfigMaps, Secrets and claims (shared/pod-references.ts); a PersistentVolume is named by the
 * claim (spec.volumeName), not the pod.
 */
export type ReferencedKind = Exclude<SyncedKind, 'Pod'>;

/** What a node's session is to do: hold this version of an object, or no longer hold a uid. */
export type ReferenceAction = { type: 'want'; node: string; object: Desired } | { type: 'unwant'; node: string; uid: string };

const keyOf = (kind: string, namespace: string | undefined, name: string | undefined): string => `${kind}/${namespace ?? ''}/${name ?? ''}`;

/** The keys of what a bound pod references, in its namespace. */
function referenceKeys(pod: Pod): string[] {
  const { namespace } = pod.metadata;
  return podReferences(pod).map((ref) => keyOf(ref.kind, namespace, ref.name));
}

/** The key of what an object references in turn: the volume a claim is bound to (PVs are cluster-scoped). */
function linkOf(kind: ReferencedKind, object: SyncedObject | undefined): string | undefined {
  if (kind !== 'PersistentVolumeClaim' || !object) return undefined;
  const volume = (object as PersistentVolumeClaim).spec?.volumeName;
  return volume ? keyOf('PersistentVolume', undefined, volume) : undefined;
}

/**
 * [SYNC-18] Which nodes need which ConfigMap, Secret, claim or volume, by name: (kind,
 * namespace, name) → the nodes with at least one pod referencing it, counted per node. A node
 * that needs a claim needs the volume the claim is bound to now (a link, followed when the
 * claim binds, changes volumeName, or goes). A pod event costs O(its references), an object
 * event O(nodes needing it). Whatever object holds the name now (any
 * uid) is the one wanted: one created after its pod, or re-created under the same name,
 * reaches the nodes at once. A plan only: it returns what the sessions are to do.
 */
export class ReferenceIndex {
  /** Bound pods that reference something: their node and the keys. */
  private readonly pods = new Map<string, { node: string; keys: readonly string[] }>();
  /** key → node → how many of its pods reference the key. */
  private readonly needs = new Map<string, Map<string, number>>();
  /** key → the object under that name now (every object of the synced kinds the informers hold). */
  private readonly objects = new Map<string, Desired>();
  /** claim key → the key of the volume the claim under that name is bound to now. */
  private readonly links = new Map<string, string>();

  /** How many objects (by name) at least one bound pod references. */
  get size(): number {
    return this.needs.size;
  }

  onPodEvent(event: CacheEvent<Pod>): ReferenceAction[] {
    if (event.type === 'SYNCED') return [];
    const uid = event.object.metadata.uid;
    if (!uid) return [];
    const node = event.type === 'DELETED' ? undefined : event.object.spec.nodeName;
    return this.podNeeds(uid, node, node ? referenceKeys(event.object) : []);
  }

  onObjectEvent(kind: ReferencedKind, event: CacheEvent<SyncedObject>): ReferenceAction[] {
    if (event.type === 'SYNCED') return [];
    const key = keyOf(kind, event.object.metadata.namespace, event.object.metadata.name);
    const before = this.objects.get(key);
    if (event.type === 'DELETED' && before && before.ref.uid !== event.object.metadata.uid) return []; // an older life of the name
    const now = event.type === 'DELETED' ? undefined : desiredOf(kind, event.object);
    if (now) this.objects.set(key, now);
    else this.objects.delete(key);
    const linkBefore = this.links.get(key);
    const linkNow = linkOf(kind, now?.object);
    if (linkNow) this.links.set(key, linkNow);
    else this.links.delete(key);
    const actions: ReferenceAction[] = [];
    for (const node of this.needs.get(key)?.keys() ?? []) {
      if (before && before.ref.uid !== now?.ref.uid) actions.push({ type: 'unwant', node, uid: before.ref.uid });
      if (now) actions.push({ type: 'want', node, object: now });
      if (linkNow === linkBefore) continue;
      if (linkNow) this.hold(node, linkNow, actions);
      if (linkBefore) this.release(node, linkBefore, actions);
    }
    return actions;
  }

  /** The new needs are counted before the old ones are released: what a pod keeps referencing never goes away in between. */
  private podNeeds(uid: string, node: string | undefined, keys: string[]): ReferenceAction[] {
    const before = this.pods.get(uid);
    if (before ? before.node === node && sameKeys(before.keys, keys) : keys.length === 0) return [];
    const actions: ReferenceAction[] = [];
    if (node && keys.length > 0) this.pods.set(uid, { node, keys });
    else this.pods.delete(uid);
    if (node) for (const key of keys) this.hold(node, key, actions);
    if (before) for (const key of before.keys) this.release(before.node, key, actions);
    return actions;
  }

  private hold(node: string, key: string, actions: ReferenceAction[]): void {
    let nodes = this.needs.get(key);
    if (!nodes) this.needs.set(key, (nodes = new Map()));
    const count = (nodes.get(node) ?? 0) + 1;
    nodes.set(node, count);
    if (count > 1) return;
    const object = this.objects.get(key);
    if (object) actions.push({ type: 'want', node, object });
    const link = this.links.get(key);
    if (link) this.hold(node, link, actions);
  }

  private release(node: string, key: string, actions: ReferenceAction[]): void {
    const nodes = this.needs.get(key);
    const count = (nodes?.get(node) ?? 0) - 1;
    if (!nodes || count > 0) return void nodes?.set(node, count);
    nodes.delete(node);
    if (nodes.size === 0) this.needs.delete(key);
    const object = this.objects.get(key);
    if (object) actions.push({ type: 'unwant', node, uid: object.ref.uid });
    const link = this.links.get(key);
    if (link) this.release(node, link, actions);
  }
}

const sameKeys = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((key, i) => key === b[i]);
