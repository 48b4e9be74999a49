/**
 * The kubelet's rule for its node status (nodeStatusReportFrequency): a report goes out when
 * what it says changed, and at least every `periodMs` when nothing did. `fingerprint` is what
 * a report is worth sending for (times that move on every sample left out).
 */
export class ReportGate {
  private last: { at: number; fingerprint: string } | undefined;

  constructor(private readonly periodMs: number) {}

  /** Whether a report of `fingerprint` is due at `now` (always with `force`); if so, it counts as sent. */
  due(fingerprint: string, now: number, force = false): boolean {
    const last = this.last;
    if (!force && last && last.fingerprint === fingerprint && now - last.at < this.periodMs) return false;
    this.last = { at: now, fingerprint };
    return true;
  }

  /** The next report is due whatever it says (a new session, or the last one not sent). */
  forget(): void {
    this.last = undefined;
  }
}
