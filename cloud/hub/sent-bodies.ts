import type { ObjectRef } from '../../shared/protocol/envelope.js';
import type { SyncedObject } from '../../shared/protocol/synced-objects.js';

/** How many object versions the hub keeps as bases for patches, by default (least recently used go first). */
export const SENT_BODIES_LIMIT = 20_000;

/**
 * The bodies the hub sent, by uid and resourceVersion: the bases of the lean sync's patches
 * (a version the ledger says an edge acknowledged, as the hub sent it). One table for every
 * node (a version's body is the same for all), bounded: a version no longer here, or never
 * sent by this hub (a restart, another cloud), is sent whole.
 */
export class SentBodies {
  private readonly bodies = new Map<string, SyncedObject>();

  constructor(private readonly limit = SENT_BODIES_LIMIT) {}

  get size(): number {
    return this.bodies.size;
  }

  remember(ref: ObjectRef, body: SyncedObject): void {
    if (ref.resourceVersion === undefined) return;
    const key = keyOf(ref.uid, ref.resourceVersion);
    this.bodies.delete(key);
    this.bodies.set(key, body);
    if (this.bodies.size > this.limit) this.bodies.delete(this.bodies.keys().next().value!);
  }

  /** The body sent for this version, if the hub still has it. */
  get(uid: string, resourceVersion: string | undefined): SyncedObject | undefined {
    if (resourceVersion === undefined) return undefined;
    const key = keyOf(uid, resourceVersion);
    const body = this.bodies.get(key);
    if (body === undefined) return undefined;
    this.bodies.delete(key); // most recently used last
    this.bodies.set(key, body);
    return body;
  }
}

const keyOf = (uid: string, resourceVersion: string): string => `${uid}@${resourceVersion}`;
