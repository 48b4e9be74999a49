/**
 * [SYNC-12] The newest statusVersion applied per pod uid, so that a status overtaken by a
 * newer one (a late re-send after a reconnect) is dropped. Kept in memory: after a cloud
 * restart the edge re-sends only its newest pending status per pod.
 */
export class StatusVersions {
  private readonly applied = new Map<string, number>();

  /** Whether a status with this version may be applied (versions are optional on the wire). */
  isNewer(uid: string, version: number | undefined): boolean {
    return version === undefined || version > (this.applied.get(uid) ?? -1);
  }

  record(uid: string, version: number | undefined): void {
    if (version !== undefined) this.applied.set(uid, Math.max(version, this.applied.get(uid) ?? -1));
  }

  forget(uid: string): void {
    this.applied.delete(uid);
  }
}
