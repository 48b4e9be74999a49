/** How many deleted uids the edge remembers [SYNC-13]. */
export const MAX_TOMBSTONES = 10_000;

/**
 * The uids the edge knows are gone for good, oldest first, over an array that lives in the
 * cache document (so it is persisted with it). Holds at most `limit`; the oldest go first.
 */
export class Tombstones {
  private readonly index: Set<string>;

  constructor(
    private readonly list: string[],
    private readonly limit = MAX_TOMBSTONES,
  ) {
    this.trim();
    this.index = new Set(list);
  }

  has(uid: string): boolean {
    return this.index.has(uid);
  }

  /** Records `uid`; false when it was already recorded. */
  add(uid: string): boolean {
    if (this.index.has(uid)) return false;
    this.list.push(uid);
    this.index.add(uid);
    for (const dropped of this.trim()) this.index.delete(dropped);
    return true;
  }

  get size(): number {
    return this.list.length;
  }

  private trim(): string[] {
    const excess = this.list.length - this.limit;
    return excess > 0 ? this.list.splice(0, excess) : [];
  }
}
