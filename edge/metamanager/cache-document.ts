import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod, PodStatus } from '../../shared/types.js';
import type { ApplyOutcome, CachedObject, LocalCache, OutboxEntry } from './local-cache.js';
import { Coalescer } from '../coalescer.js';

/** The cache as one JSON document (the lowdb file's content). */
export interface CacheData {
  objects: Record<string, CachedObject>;
  outbox: Record<string, OutboxEntry>;
  /** Last outbox version handed out; grows forever so an ack never matches a newer status. */
  statusVersion: number;
}

export const emptyCacheData = (): CacheData => ({ objects: {}, outbox: {}, statusVersion: 0 });

const DIGITS = /^\d+$/;

/** True when `incoming` is newer than `cached`. Revisions are integers (the store's revision). */
export function isNewerVersion(incoming: string | undefined, cached: string | undefined): boolean {
  if (cached === undefined) return true;
  if (incoming === undefined) return false;
  if (DIGITS.test(incoming) && DIGITS.test(cached)) return BigInt(incoming) > BigInt(cached);
  return incoming !== cached;
}

const sameName = (a: { kind: string; namespace?: string; name: string }, b: ObjectRef): boolean =>
  a.kind === b.kind && (a.namespace ?? '') === (b.namespace ?? '') && a.name === b.name;

/**
 * The LocalCache rules over one in-memory document; `persist` writes the document out.
 * Both implementations (lowdb file, memory) are this class with a different `persist`.
 */
export class CacheDocument implements LocalCache {
  private readonly writer: Coalescer;

  constructor(
    private readonly data: CacheData,
    persist: () => Promise<void>,
  ) {
    this.writer = new Coalescer(persist);
  }

  apply(ref: ObjectRef, object: Pod): ApplyOutcome {
    const held = this.data.objects[ref.uid];
    // [SYNC-6] an older or equal resourceVersion is ignored (the caller still acks it).
    if (held && !isNewerVersion(ref.resourceVersion, held.resourceVersion)) return 'ignored';
    const other = Object.values(this.data.objects).find((o) => o.uid !== ref.uid && sameName(o, ref));
    if (other) this.forget(other.uid); // [SYNC-6] a different uid under the same name replaces it
    const copy = structuredClone(object);
    // The edge owns status [SYNC-12]: a new spec from the cloud keeps the status the edge reported.
    if (held?.object.status) copy.status = held.object.status;
    const entry: CachedObject = { uid: ref.uid, kind: ref.kind, name: ref.name, object: copy };
    if (ref.namespace !== undefined) entry.namespace = ref.namespace;
    if (ref.resourceVersion !== undefined) entry.resourceVersion = ref.resourceVersion;
    this.data.objects[ref.uid] = entry;
    return held ? 'updated' : other ? 'replaced' : 'created';
  }

  delete(ref: ObjectRef): boolean {
    // [SYNC-7] a tombstone removes only the object with the same uid.
    if (!this.data.objects[ref.uid]) return false;
    this.forget(ref.uid);
    return true;
  }

  objects(): CachedObject[] {
    return structuredClone(Object.values(this.data.objects));
  }

  queueStatus(ref: ObjectRef, status: PodStatus): OutboxEntry {
    const held = this.data.objects[ref.uid];
    if (held) held.object.status = structuredClone(status);
    // [SYNC-12] coalesced per uid: only the newest status is pending.
    const entry: OutboxEntry = { ref: { ...ref }, status: structuredClone(status), version: ++this.data.statusVersion };
    this.data.outbox[ref.uid] = entry;
    return structuredClone(entry);
  }

  ackStatus(uid: string, version: number): boolean {
    if (this.data.outbox[uid]?.version !== version) return false;
    delete this.data.outbox[uid];
    return true;
  }

  outbox(): OutboxEntry[] {
    return structuredClone(Object.values(this.data.outbox).sort((a, b) => a.version - b.version));
  }

  flush(): Promise<void> {
    return this.writer.run();
  }

  private forget(uid: string): void {
    delete this.data.objects[uid];
    delete this.data.outbox[uid];
  }
}
