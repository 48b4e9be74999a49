import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';

/** How many object versions the hub keeps as bases for patches, by default (least recently used go first). */
export const SENT_BODIES_LIMIT = 20_000;
/** Versions kept per object: the newest sent, and the one before it (usually the one its edges acked). */
const VERSIONS_PER_OBJECT = 2;

/**
 * The bodies the hub sent, by uid and resourceVersion: the bases of the lean sync's patches
 * (a version the ledger says an edge acknowledged, as the hub sent it). One table for every
 * node (a version's body is the same for all), bounded: a version no longer here, or never
 * sent by this hub (a restart, another cloud), is sent whole. Two versions per object at most:
 * an older one is of use only to an edge that lags further behind, which then gets it whole.
 */
export class SentBodies {
  /** uid@version → the body and whose version it is, least recently used first. */
  private readonly bodies = new Map<string, Sent>();
  /** uid → the versions kept, oldest first. */
  private readonly versions = new Map<string, string[]>();

  constructor(private readonly limit = SENT_BODIES_LIMIT) {}

  get size(): number {
    return this.bodies.size;
  }

  remember(ref: ObjectRef, body: SyncedObject): void {
    if (ref.resourceVersion === undefined) return;
    const { uid, resourceVersion } = ref;
    const key = keyOf(uid, resourceVersion);
    this.bodies.delete(key);
    this.bodies.set(key, { uid, resourceVersion, body });
    const kept = (this.versions.get(uid) ?? []).filter((rv) => rv !== resourceVersion);
    kept.push(resourceVersion);
    this.versions.set(uid, kept);
    if (kept.length > VERSIONS_PER_OBJECT) this.evict(uid, kept[0]!);
    if (this.bodies.size > this.limit) {
      const [oldest] = this.bodies.values();
      this.evict(oldest!.uid, oldest!.resourceVersion);
    }
  }

  private evict(uid: string, resourceVersion: string): void {
    this.bodies.delete(keyOf(uid, resourceVersion));
    const kept = this.versions.get(uid)?.filter((rv) => rv !== resourceVersion) ?? [];
    if (kept.length > 0) this.versions.set(uid, kept);
    else this.versions.delete(uid);
  }

  /** The body sent for this version, if the hub still has it. */
  get(uid: string, resourceVersion: string | undefined): SyncedObject | undefined {
    if (resourceVersion === undefined) return undefined;
    const key = keyOf(uid, resourceVersion);
    const sent = this.bodies.get(key);
    if (sent === undefined) return undefined;
    this.bodies.delete(key); // most recently used last
    this.bodies.set(key, sent);
    return sent.body;
  }
}

interface Sent {
  uid: string;
  resourceVersion: string;
  body: SyncedObject;
}

const keyOf = (uid: string, resourceVersion: string): string => `${uid}@${resourceVersion}`;
