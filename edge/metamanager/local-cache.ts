import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Endpoints, Service } from '../../shared/service-types.js';
import type { Node, Pod, PodStatus } from '../../shared/types.js';
import { CacheDocument, emptyCacheData } from './cache-document.js';

/**
 * One object the cloud sent, as the edge holds it: a pod bound to this node, a ConfigMap,
 * Secret or claim one of them references, or the volume such a claim is bound to (cluster-
 * scoped: no namespace) [SYNC-18]; a Service or Endpoints kube-proxy routes, or this node's
 * own Node (cluster-scoped) [SYNC-19]. A pod's `object.status` is the edge's own view.
 */
export type CachedObject = CachedVersion &
  (
    | { kind: 'Pod'; object: Pod }
    | { kind: 'ConfigMap'; object: ConfigMap }
    | { kind: 'Secret'; object: Secret }
    | { kind: 'PersistentVolumeClaim'; object: PersistentVolumeClaim }
    | { kind: 'PersistentVolume'; object: PersistentVolume }
    | { kind: 'Service'; object: Service }
    | { kind: 'Endpoints'; object: Endpoints }
    | { kind: 'Node'; object: Node }
  );

interface CachedVersion {
  uid: string;
  namespace?: string;
  name: string;
  resourceVersion?: string;
  /** Pods only: the outbox version of the status the edge last reported for it (absent: none yet). */
  statusVersion?: number;
}

/**
 * A pod status waiting for the cloud's ack; `version` tells a newer status from an acked one.
 * Versions grow strictly across every status of this edge (and across its restarts), so the
 * cloud can drop a status older than one it already applied for the same uid.
 */
export interface OutboxEntry {
  ref: ObjectRef;
  status: PodStatus;
  version: number;
}

export type ApplyOutcome = 'created' | 'updated' | 'replaced' | 'ignored';

/**
 * The edge's local cache (KubeEdge's MetaManager): what the cloud sent, and pod statuses not
 * yet acknowledged. Reads and mutations are synchronous and in memory; `flush` persists them.
 * Callers ack a cloud message only after the `flush` that follows its mutation resolves [SYNC-8].
 */
export interface LocalCache {
  /**
   * [SYNC-6][SYNC-13] Keeps the newer version: an older or equal resourceVersion is ignored, and
   * so is a tombstoned uid; under a name another uid holds, the higher resourceVersion wins and
   * the loser's uid is tombstoned.
   */
  apply(ref: ObjectRef, object: SyncedObject): ApplyOutcome;
  /**
   * [SYNC-7] Removes the object only when the cached one has the same uid; [SYNC-13] tombstones
   * a Pod's uid either way ([SYNC-18]: a referenced object's uid may be wanted again).
   */
  delete(ref: ObjectRef): boolean;
  /** [SYNC-13] Whether `uid` is known to be gone for good (one of the most recent MAX_TOMBSTONES). */
  tombstoned(uid: string): boolean;
  /**
   * Every object held, each with the newest status queued for it. The entries are the cache's
   * own (edged reads them every sync on every edge; copying them was the fleet's main cost):
   * read them, never change them.
   */
  objects(): readonly Readonly<CachedObject>[];
  /** The object held under this kind, namespace and name (one uid at most), at once; undefined when none is. */
  find(kind: CachedObject['kind'], namespace: string | undefined, name: string): Readonly<CachedObject> | undefined;
  /**
   * Records the pod's newest status and puts it in the outbox, replacing any pending one [SYNC-12].
   * Its version is above every earlier one and at least `now` (ms), so versions keep growing
   * even when the data directory is lost.
   */
  queueStatus(ref: ObjectRef, status: PodStatus, now?: number): OutboxEntry;
  /** Removes the outbox entry for `uid` if it is still at `version` (a newer status stays queued). */
  ackStatus(uid: string, version: number): boolean;
  /** Statuses not yet acknowledged, oldest first (frozen: shared, never copied). */
  outbox(): readonly OutboxEntry[];
  /** Persists every mutation made so far. Resolves after the write (at once when nothing changed); concurrent calls share writes. */
  flush(): Promise<void>;
}

/** A cache that keeps nothing on disk: for tests and hollow edges. */
export function createMemoryCache(options: { tombstoneLimit?: number } = {}): LocalCache {
  return new CacheDocument(emptyCacheData(), async () => {}, options.tombstoneLimit);
}

/** The pods the cache holds: what the cloud wants this node to run. */
export function podsIn(cache: Pick<LocalCache, 'objects'>): Pod[] {
  return cache.objects().flatMap((o) => (o.kind === 'Pod' ? [o.object] : []));
}

/** The ref naming the version of an object the edge holds (for hello and podStatus). */
export function refOf(held: CachedObject): ObjectRef {
  const ref: ObjectRef = { kind: held.kind, name: held.name, uid: held.uid };
  if (held.namespace !== undefined) ref.namespace = held.namespace;
  if (held.resourceVersion !== undefined) ref.resourceVersion = held.resourceVersion;
  return ref;
}
