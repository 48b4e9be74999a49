/**
 * How long a DaemonSet waits before deleting another failed pod on the same node (kube's
 * failedPodsBackoff: 1 s doubling to 15 min, forgotten after twice that without a failure),
 * so that a node whose kubelet keeps rejecting the pod is not fought in a hot loop. Keys are
 * "<namespace>/<ds>/<node>"; times are already scaled to the timing profile.
 */
interface Entry {
  delayMs: number;
  at: number;
}

export class FailedPodBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** Milliseconds left before another failed pod may be deleted (undefined: none). */
  remaining(key: string, now: number): number | undefined {
    const e = this.entries.get(key);
    if (!e || now - e.at >= e.delayMs) return undefined;
    return e.delayMs - (now - e.at);
  }

  /** A failed pod is being deleted now: the next one waits longer. */
  next(key: string, now: number): void {
    const e = this.entries.get(key);
    const fresh = !e || now - e.at > 2 * this.maxMs;
    this.entries.set(key, { delayMs: fresh ? this.initialMs : Math.min(2 * e.delayMs, this.maxMs), at: now });
  }

  /** Drops every entry of the DaemonSet `prefix` ("<namespace>/<ds>/"). */
  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
