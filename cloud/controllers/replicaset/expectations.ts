import type { Clock } from '../../../shared/clock.js';

/**
 * What a controller has asked for but not yet seen through its informer (client-go's
 * UIDTrackingControllerExpectations): pending creations as a count, pending deletions by pod
 * uid. While any are pending the controller does not create or delete again, so a lagging
 * watch never makes it double-create. Expectations expire after `timeoutMs`, in case an event
 * was lost.
 */
interface Pending {
  adds: number;
  deletes: Set<string>;
  since: number;
}

export class Expectations {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** True when nothing is pending for `key` (or what was pending has expired). */
  satisfied(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return true;
    if (p.adds <= 0 && p.deletes.size === 0) return true;
    return this.clock.now() - p.since >= this.timeoutMs;
  }

  expectCreations(key: string, count: number): void {
    this.expect(key, count, []);
  }

  expectDeletions(key: string, uids: readonly string[]): void {
    this.expect(key, 0, uids);
  }

  /** Both at once (a DaemonSet pass may create on some nodes and delete on others). */
  expect(key: string, creations: number, deletionUids: readonly string[]): void {
    this.pending.set(key, { adds: creations, deletes: new Set(deletionUids), since: this.clock.now() });
  }

  /** A pod created for `key` was seen (or its creation failed). */
  creationObserved(key: string): void {
    const p = this.pending.get(key);
    if (p && p.adds > 0) p.adds--;
  }

  /** A pod deleted for `key` was seen gone or terminating (or its deletion failed). Idempotent. */
  deletionObserved(key: string, uid: string): void {
    this.pending.get(key)?.deletes.delete(uid);
  }

  /** The owner is gone: forget it. */
  forget(key: string): void {
    this.pending.delete(key);
  }
}
