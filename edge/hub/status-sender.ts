import { objectKey } from '../../shared/types.js';
import type { PodStartupTrace } from '../../shared/trace/pod-startup-trace.js';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft, UpMessage } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';
import type { LocalCache, OutboxEntry } from '../metamanager/local-cache.js';
import { ackTimeoutFor } from './ack-timeout.js';
import { DEFAULT_STATUS_FLUSH_BATCH, planStatusSends, recentSends, type LastSend } from './status-plan.js';

/** A podStatus as the edge sends it: always with its outbox version as `statusVersion`. */
export type PodStatusDraft = Extract<UpDraft, { type: 'podStatus' }> & { statusVersion: number };

export interface StatusSenderDeps {
  cache: LocalCache;
  hub: { stamp(draft: UpDraft): UpMessage; publish(message: UpMessage): Promise<void> };
  isConnected: () => boolean;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  /** At most this many statuses per timing.statusResendMs window, so a reconnect does not flood the cloud. */
  batch?: number;
  /** Where a pod's first status saying it runs is noted as sent. */
  trace?: PodStartupTrace;
}

interface Sent extends LastSend {
  uid: string;
}

/**
 * Sends the cache's status outbox as `podStatus` messages and removes an entry when the
 * cloud acks it; an entry not acked in time is sent again [SYNC-12]: after timing.statusResendMs,
 * or longer when the cloud's acks take longer (ack-timeout.ts), doubling with each try.
 * A status goes out only once it is on disk, and at most `batch` go out per window.
 */
export class StatusSender {
  /** Message id → what it carried. */
  private readonly inFlight = new Map<string, Sent>();
  /** uid → the last send of its current status. */
  private readonly lastSend = new Map<string, Sent>();
  /** When statuses went out lately, in any session (see planStatusSends). */
  private sentAt: number[] = [];
  private cancelTick: Cancel | undefined;
  private flushing = false;
  private again = false;
  private readonly ackTimeout;

  constructor(private readonly deps: StatusSenderDeps) {
    this.ackTimeout = ackTimeoutFor(deps.timing);
  }

  start(): void {
    const period = Math.max(1, Math.floor(this.deps.timing.statusResendMs / 2));
    this.cancelTick = this.deps.clock.setRepeating(period, () => this.flush());
  }

  stop(): void {
    this.cancelTick?.();
  }

  /** A new session: every pending status goes out again, whatever was sent before. */
  reset(): void {
    this.inFlight.clear();
    this.lastSend.clear();
  }

  /** Sends what is due. Safe to call at any time; overlapping calls run one after another. */
  flush(): void {
    if (this.flushing) {
      this.again = true;
      return;
    }
    this.flushing = true;
    void this.sendDue()
      .catch((err: Error) => this.deps.logger.error('cannot send statuses', { error: err.message }))
      .finally(() => {
        this.flushing = false;
        if (this.again) {
          this.again = false;
          this.flush();
        }
      });
  }

  /** Handles the cloud's ack; false when `parentId` is not a status we sent. */
  onAck(parentId: string): boolean {
    const sent = this.inFlight.get(parentId);
    if (!sent) return false;
    if (sent.tries === 1) this.ackTimeout.observe(this.deps.clock.now() - sent.at);
    for (const [id, s] of this.inFlight) if (s.uid === sent.uid && s.version <= sent.version) this.inFlight.delete(id);
    // The removal reaches disk with the next cache write: losing it in a crash only re-sends
    // a status the cloud already has, which it drops by its statusVersion.
    if (this.deps.cache.ackStatus(sent.uid, sent.version)) this.lastSend.delete(sent.uid);
    return true;
  }

  private async sendDue(): Promise<void> {
    const { cache, clock, timing, isConnected } = this.deps;
    if (!isConnected()) return;
    // Only what is on disk goes out, so a crash never re-issues a version the cloud has seen.
    await cache.flush();
    const now = clock.now();
    this.sentAt = recentSends(this.sentAt, now, timing.statusResendMs);
    const batch = this.deps.batch ?? DEFAULT_STATUS_FLUSH_BATCH;
    const resendAfterMs = (tries: number): number => this.ackTimeout.resendAfterMs(tries);
    const picked = planStatusSends({ outbox: cache.outbox(), lastSend: this.lastSend, sentAt: this.sentAt, now, windowMs: timing.statusResendMs, batch, resendAfterMs });
    // All at once: QoS 1 keeps many publishes in flight, instead of one round trip each.
    await Promise.all(picked.map((entry) => this.send(entry, now)));
  }

  private async send(entry: OutboxEntry, now: number): Promise<void> {
    if (!this.deps.isConnected()) return;
    const last = this.lastSend.get(entry.ref.uid);
    const sent: Sent = { uid: entry.ref.uid, version: entry.version, at: now, tries: last?.version === entry.version ? last.tries + 1 : 1 };
    this.lastSend.set(sent.uid, sent);
    this.sentAt.push(now);
    const draft: PodStatusDraft = { type: 'podStatus', ref: entry.ref, body: entry.status, statusVersion: entry.version };
    const message = this.deps.hub.stamp(draft);
    // Registered before publishing: the cloud's ack may arrive before our PUBACK does.
    this.inFlight.set(message.id, sent);
    if (entry.status.phase === 'Running') this.deps.trace?.mark(objectKey(entry.ref), 'statusSent');
    try {
      await this.deps.hub.publish(message);
    } catch (err) {
      this.inFlight.delete(message.id);
      if (this.lastSend.get(sent.uid) === sent) this.lastSend.delete(sent.uid);
      this.deps.logger.info('status not sent; will retry', { uid: sent.uid, error: (err as Error).message });
    }
  }
}
