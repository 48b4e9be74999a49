/** Which node each live pod is on (or assumed to be on), with per-node counts kept incrementally. */
export class PodPlacement {
  private readonly nodeOf = new Map<string, string>();
  readonly counts = new Map<string, number>();

  set(key: string, node: string | undefined): void {
    const old = this.nodeOf.get(key);
    if (old === node) return;
    if (old !== undefined) {
      const left = (this.counts.get(old) ?? 1) - 1;
      if (left > 0) this.counts.set(old, left);
      else this.counts.delete(old);
      this.nodeOf.delete(key);
    }
    if (node !== undefined) {
      this.nodeOf.set(key, node);
      this.counts.set(node, (this.counts.get(node) ?? 0) + 1);
    }
  }
}
