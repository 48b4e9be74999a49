import { deepFreeze } from '../../shared/freeze.js';
import { settle } from '../../shared/clock.js';
import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';
import type { PodStatus } from '../../shared/types.js';
import { Coalescer } from '../coalescer.js';
import { planApply } from './apply-rule.js';
import type { ApplyOutcome, CachedObject, LocalCache, OutboxEntry } from './local-cache.js';
import { Tombstones } from './tombstones.js';

export { isNewerVersion } from './apply-rule.js';

/** The cache as one JSON document (the lowdb file's content). */
export interface CacheData {
  objects: Record<string, CachedObject>;
  outbox: Record<string, OutboxEntry>;
  /** Last outbox version handed out; grows forever so an ack never matches a newer status. */
  statusVersion: number;
  /** uids known to be gone for good, oldest first, at most MAX_TOMBSTONES [SYNC-13]. */
  tombstones: string[];
  /** The cache was lost, or fell back to an older copy, and the cloud has not relisted since: it may lack pods the node should run. */
  awaitingRelist?: true;
}

export const emptyCacheData = (): CacheData => ({ objects: {}, outbox: {}, statusVersion: 0, tombstones: [] });

/** The key of an object's name: at most one uid holds it. */
const nameKey = (o: { kind: string; namespace?: string; name: string }): string => `${o.kind}/${o.namespace ?? ''}/${o.name}`;

/**
 * The LocalCache rules over one in-memory document; `persist` writes the document out.
 * Both implementations (lowdb file, memory) are this class with a different `persist`.
 */
export class CacheDocument implements LocalCache {
  private readonly writer: Coalescer;
  private readonly tombs: Tombstones;
  /** nameKey → uid of the object held under that name (finds the rival of an apply at once). */
  private readonly uidByName = new Map<string, string>();
  /** Mutations made so far, and how many of them are on disk: a flush with nothing new is free. */
  private changes = 0;
  private persisted = 0;

  constructor(
    private readonly data: CacheData,
    persist: () => Promise<void>,
    tombstoneLimit?: number,
  ) {
    this.tombs = new Tombstones(data.tombstones, tombstoneLimit);
    for (const o of Object.values(data.objects)) this.uidByName.set(nameKey(deepFreeze(o)), o.uid);
    for (const entry of Object.values(data.outbox)) deepFreeze(entry);
    this.writer = new Coalescer(async () => {
      await settle(); // every message handled in this turn shares this write
      const covering = this.changes;
      await persist();
      this.persisted = Math.max(this.persisted, covering);
    });
  }

  apply(ref: ObjectRef, object: SyncedObject): ApplyOutcome {
    const held = this.data.objects[ref.uid];
    const rival = this.rivalOf(ref);
    const plan = planApply(ref, held, rival, this.tombs.has(ref.uid)); // [SYNC-6][SYNC-13]
    if (plan.tombstone !== undefined && this.tombs.add(plan.tombstone)) this.changes++;
    if (!plan.store) return 'ignored';
    if (plan.replaces !== undefined) this.forget(plan.replaces);
    const copy = structuredClone(object);
    // The codec let through only a body of the kind its ref names (shared/protocol/codec.ts).
    const entry = { uid: ref.uid, kind: ref.kind, name: ref.name, object: copy } as CachedObject;
    // The edge owns status [SYNC-12]: once it reported one, a new spec from the cloud keeps it.
    if (held?.kind === 'Pod' && entry.kind === 'Pod' && held.statusVersion !== undefined) {
      entry.object.status = held.object.status;
      entry.statusVersion = held.statusVersion;
    }
    if (ref.namespace !== undefined) entry.namespace = ref.namespace;
    if (ref.resourceVersion !== undefined) entry.resourceVersion = ref.resourceVersion;
    this.data.objects[ref.uid] = deepFreeze(entry);
    this.uidByName.set(nameKey(entry), ref.uid);
    this.changes++;
    return plan.outcome;
  }

  delete(ref: ObjectRef): boolean {
    // [SYNC-13] a pod's uid is gone for good, whether or not it is held (its apply may come later).
    // [SYNC-18] Not so a referenced object's: it is only no longer needed here, and may be again.
    if (ref.kind === 'Pod' && this.tombs.add(ref.uid)) this.changes++;
    // [SYNC-7] a tombstone removes only the object with the same uid.
    if (!this.data.objects[ref.uid]) return false;
    this.forget(ref.uid);
    return true;
  }

  tombstoned(uid: string): boolean {
    return this.tombs.has(uid);
  }

  objects(): readonly Readonly<CachedObject>[] {
    return Object.values(this.data.objects);
  }

  find(kind: CachedObject['kind'], namespace: string | undefined, name: string): Readonly<CachedObject> | undefined {
    const uid = this.uidByName.get(nameKey({ kind, namespace, name }));
    return uid === undefined ? undefined : this.data.objects[uid];
  }

  queueStatus(ref: ObjectRef, status: PodStatus, now = 0): OutboxEntry {
    // A hybrid clock: strictly growing, and at least the time, so it keeps growing even if
    // the data directory (and with it this counter) is lost.
    const version = Math.max(this.data.statusVersion + 1, Math.floor(now));
    this.data.statusVersion = version;
    const held = this.data.objects[ref.uid];
    // Entries are frozen and shared with readers: a new status makes a new entry.
    // One frozen copy, shared by the entry, the outbox and their readers.
    const queued = deepFreeze(structuredClone(status));
    if (held?.kind === 'Pod') this.data.objects[ref.uid] = deepFreeze({ ...held, statusVersion: version, object: { ...held.object, status: queued } });
    // [SYNC-12] coalesced per uid: only the newest status is pending.
    const entry: OutboxEntry = deepFreeze({ ref: { ...ref }, status: queued, version });
    this.data.outbox[ref.uid] = entry;
    this.changes++;
    return entry;
  }

  ackStatus(uid: string, version: number): boolean {
    if (this.data.outbox[uid]?.version !== version) return false;
    delete this.data.outbox[uid];
    this.changes++;
    return true;
  }

  outbox(): readonly OutboxEntry[] {
    return Object.values(this.data.outbox).sort((a, b) => a.version - b.version);
  }

  /** Whether the cache awaits the cloud's relist (CacheData.awaitingRelist): until then, running pods it lacks are left running. */
  awaitingRelist(): boolean {
    return this.data.awaitingRelist === true;
  }

  /** The cloud answered a hello: the cache holds all the node should run. Persisted by the next flush. */
  relisted(): void {
    if (!this.data.awaitingRelist) return;
    delete this.data.awaitingRelist;
    this.changes++;
  }

  flush(): Promise<void> {
    if (this.persisted === this.changes) return Promise.resolve();
    return this.writer.run();
  }

  /** The object another uid holds under the name of `ref`, if any. */
  private rivalOf(ref: ObjectRef): CachedObject | undefined {
    const uid = this.uidByName.get(nameKey(ref));
    const rival = uid === undefined || uid === ref.uid ? undefined : this.data.objects[uid];
    return rival && nameKey(rival) === nameKey(ref) ? rival : undefined;
  }

  private forget(uid: string): void {
    const held = this.data.objects[uid];
    if (held && this.uidByName.get(nameKey(held)) === uid) this.uidByName.delete(nameKey(held));
    delete this.data.objects[uid];
    delete this.data.outbox[uid];
    this.changes++;
  }
}
