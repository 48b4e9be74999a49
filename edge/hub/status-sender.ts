import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft, UpMessage } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';
import type { LocalCache } from '../metamanager/local-cache.js';

export interface StatusSenderDeps {
  cache: LocalCache;
  hub: { stamp(draft: UpDraft): UpMessage; publish(message: UpMessage): Promise<void> };
  isConnected: () => boolean;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  /** At most this many statuses per flush, so a reconnect does not flood the cloud. */
  maxPerFlush?: number;
}

interface Sent {
  uid: string;
  version: number;
  at: number;
}

/**
 * Sends the cache's status outbox as `podStatus` messages and removes an entry when the
 * cloud acks it; an entry not acked within timing.statusResendMs is sent again [SYNC-12].
 */
export class StatusSender {
  /** Message id → what it carried. */
  private readonly inFlight = new Map<string, Sent>();
  /** uid → the last send of its current status. */
  private readonly lastSend = new Map<string, Sent>();
  private cancelTick: Cancel | undefined;
  private flushing = false;
  private again = false;

  constructor(private readonly deps: StatusSenderDeps) {}

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
    void this.sendDue().finally(() => {
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
    for (const [id, s] of this.inFlight) if (s.uid === sent.uid && s.version <= sent.version) this.inFlight.delete(id);
    if (this.deps.cache.ackStatus(sent.uid, sent.version)) {
      this.lastSend.delete(sent.uid);
      this.deps.cache.flush().catch((err: Error) => this.deps.logger.error('cannot persist the outbox', { error: err.message }));
    }
    return true;
  }

  private async sendDue(): Promise<void> {
    const { cache, clock, timing, isConnected } = this.deps;
    let budget = this.deps.maxPerFlush ?? 100;
    for (const entry of cache.outbox()) {
      if (!isConnected() || budget <= 0) return;
      const last = this.lastSend.get(entry.ref.uid);
      if (last && last.version === entry.version && clock.now() - last.at < timing.statusResendMs) continue;
      budget--;
      const sent = { uid: entry.ref.uid, version: entry.version, at: clock.now() };
      this.lastSend.set(entry.ref.uid, sent);
      const message = this.deps.hub.stamp({ type: 'podStatus', ref: entry.ref, body: entry.status });
      // Registered before publishing: the cloud's ack may arrive before our PUBACK does.
      this.inFlight.set(message.id, sent);
      try {
        await this.deps.hub.publish(message);
      } catch (err) {
        this.inFlight.delete(message.id);
        this.lastSend.delete(entry.ref.uid);
        this.deps.logger.info('status not sent; will retry', { uid: entry.ref.uid, error: (err as Error).message });
        return;
      }
    }
  }
}
