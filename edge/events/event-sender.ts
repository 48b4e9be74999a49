import type { Observable } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft, UpMessage } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';
import type { Connectivity } from '../../shared/transport.js';
import { Coalescer } from '../coalescer.js';
import { ackTimeoutFor } from '../hub/ack-timeout.js';
import { recentSends } from '../hub/status-plan.js';
import type { EventOutbox, PendingEvent } from './event-outbox.js';
import { DEFAULT_EVENT_FLUSH_BATCH, planEventSends, type EventSend } from './event-send-plan.js';

export interface EventSenderDeps {
  outbox: EventOutbox;
  hub: { stamp(draft: UpDraft): UpMessage; publish(message: UpMessage): Promise<void> };
  isConnected: () => boolean;
  clock: Clock;
  timing: Pick<Timing, 'statusResendMs'>;
  logger: Logger;
  /** At most this many events per timing.statusResendMs window. */
  batch?: number;
}

/**
 * Sends the event outbox as `event` messages [SYNC-21] and removes an entry when the cloud acks
 * it; an unacked one goes out again with a doubling back-off. Apart from pod statuses (its own
 * outbox, timers and rate), so events never hold a status back.
 */
export class EventSender {
  /** Message id → what it carried. */
  private readonly inFlight = new Map<string, { name: string; version: number; at: number; tries: number }>();
  /** name → the id of its latest send (only that one's ack counts: the map stays as small as the outbox). */
  private readonly latestId = new Map<string, string>();
  private readonly lastSend = new Map<string, EventSend>();
  private sentAt: number[] = [];
  private readonly sends = new Coalescer(() => this.sendDue());
  private cancelTick: Cancel | undefined;
  private readonly ackTimeout;

  constructor(private readonly deps: EventSenderDeps) {
    this.ackTimeout = ackTimeoutFor(deps.timing);
  }

  start(): void {
    const period = Math.max(1, Math.floor(this.deps.timing.statusResendMs / 2));
    this.cancelTick = this.deps.clock.setRepeating(period, () => this.flush());
  }

  stop(): void {
    this.cancelTick?.();
  }

  /** Each new session sends every pending event again, oldest first (at the sender's rate); returns what ends it. */
  followSessions(connectivity$: Observable<Connectivity>): () => void {
    const subscription = connectivity$.subscribe((c) => {
      if (!c.connected) return;
      this.reset();
      this.flush();
    });
    return () => subscription.unsubscribe();
  }

  /** A new session: every pending event goes out again. */
  reset(): void {
    this.inFlight.clear();
    this.latestId.clear();
    this.lastSend.clear();
  }

  /** Sends what is due; never rejects. */
  flush(): void {
    this.sends.run().catch((err: Error) => this.deps.logger.error('cannot send events', { error: err.message }));
  }

  /** Handles the cloud's ack; false when `parentId` is not an event we sent. */
  onAck(parentId: string): boolean {
    const sent = this.inFlight.get(parentId);
    if (!sent) return false;
    if (sent.tries === 1) this.ackTimeout.observe(this.deps.clock.now() - sent.at);
    this.inFlight.delete(parentId);
    this.latestId.delete(sent.name);
    if (this.deps.outbox.ack(sent.name, sent.version)) this.lastSend.delete(sent.name);
    return true;
  }

  private async sendDue(): Promise<void> {
    const { outbox, clock, timing } = this.deps;
    if (!this.deps.isConnected()) return;
    const now = clock.now();
    this.sentAt = recentSends(this.sentAt, now, timing.statusResendMs);
    const batch = this.deps.batch ?? DEFAULT_EVENT_FLUSH_BATCH;
    const resendAfterMs = (tries: number): number => this.ackTimeout.resendAfterMs(tries);
    const picked = planEventSends({ entries: outbox.entries(), lastSend: this.lastSend, sentAt: this.sentAt, now, windowMs: timing.statusResendMs, batch, resendAfterMs });
    await Promise.all(picked.map((entry) => this.send(entry, now)));
  }

  private async send({ event, version }: PendingEvent, now: number): Promise<void> {
    const last = this.lastSend.get(event.name);
    const send: EventSend = { version, at: now, tries: last?.version === version ? last.tries + 1 : 1 };
    this.lastSend.set(event.name, send);
    this.sentAt.push(now);
    const message = this.deps.hub.stamp({ type: 'event', body: event });
    // Registered before publishing: the cloud's ack may arrive before our PUBACK does.
    const earlier = this.latestId.get(event.name);
    if (earlier !== undefined) this.inFlight.delete(earlier);
    this.latestId.set(event.name, message.id);
    this.inFlight.set(message.id, { name: event.name, version, at: now, tries: send.tries });
    try {
      await this.deps.hub.publish(message);
    } catch (err) {
      this.inFlight.delete(message.id);
      // Not sent: due again at the next tick (as a pod status is), not after a back-off.
      if (this.lastSend.get(event.name) === send) this.lastSend.delete(event.name);
      this.deps.logger.info('event not sent; will retry', { event: event.name, error: (err as Error).message });
    }
  }
}
