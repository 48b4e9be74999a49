import { AckTimeout } from '../../shared/ack-timeout.js';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { DownDraft, DownMessage, ObjectRef } from '../../shared/protocol/envelope.js';
import type { Timing } from '../../shared/timing.js';

/** How a session puts messages on the wire: `send` stamps and publishes, `resend` repeats one. */
export interface SessionTransport {
  send(node: string, draft: DownDraft): DownMessage;
  resend(node: string, message: DownMessage): void;
}

export type ObjectDraft = Extract<DownDraft, { type: 'apply' | 'delete' }>;

/** The newest message pending for one uid, and its transmission if it went out. */
export interface Pending {
  draft: ObjectDraft;
  ref: ObjectRef;
  sent?: Transmission;
  /** The transmission this one superseded, whose ack may still come: one per uid at most. */
  superseded?: string;
}

/** One transmission of a pending message: sent at `at`, `tries` times so far. */
export interface Transmission {
  id: string;
  message: DownMessage;
  at: number;
  tries: number;
  cancel?: Cancel;
}

export interface NodeOutboxDeps {
  node: string;
  clock: Clock;
  timing: Pick<Timing, 'resendMinMs' | 'resendMaxMs'>;
  transport: SessionTransport;
  /** Whether the node's session is connected: only then do messages go out, and resends go on. */
  connected: () => boolean;
}

/**
 * One node's coalescing outbox keyed by uid [SYNC-3]: only the newest message for a uid is
 * pending, and it stays until acked, re-sent with doubling backoff while the node is
 * connected [SYNC-4]. It knows which transmissions an ack may still answer.
 *
 * On a slow link a burst queues behind itself: the 50th message of a burst is acked seconds
 * after it was sent, though nothing was lost. So the first wait is learnt from the node's acks
 * (shared/ack-timeout.ts, at least resendMinMs), and a message is not re-sent while the node
 * keeps acking (one MQTT connection delivers in order: what is behind acked messages is queued,
 * not lost), unless it has waited resendMaxMs. See docs/protocol.md, "Tuning for weak links".
 */
export class NodeOutbox {
  private readonly pending = new Map<string, Pending>();
  private readonly ackTimeout: AckTimeout;
  /** When the node last acked anything (clock ms). */
  private lastAckAt = -Infinity;
  /** Transmitted object messages not yet acked, by id: each pending one and the one it superseded. */
  private readonly unacked = new Map<string, { type: ObjectDraft['type']; ref: ObjectRef }>();

  constructor(private readonly deps: NodeOutboxDeps) {
    this.ackTimeout = new AckTimeout(deps.timing.resendMinMs, deps.timing.resendMaxMs);
  }

  get size(): number {
    return this.pending.size;
  }

  /** Transmissions whose ack would still count: at most two per pending uid. */
  get awaitingAck(): number {
    return this.unacked.size;
  }

  /** What is pending for `uid`: the same object until it is replaced or settled. */
  get(uid: string): Readonly<Pending> | undefined {
    return this.pending.get(uid);
  }

  uids(): IterableIterator<string> {
    return this.pending.keys();
  }

  /** [SYNC-3] The newest draft replaces whatever was pending for the uid; it goes out at once when connected. */
  put(draft: ObjectDraft): void {
    const before = this.pending.get(draft.ref.uid);
    before?.sent?.cancel?.();
    if (before?.sent && before.superseded) this.unacked.delete(before.superseded);
    const pending: Pending = { draft, ref: draft.ref, superseded: before?.sent?.id ?? before?.superseded };
    this.pending.set(draft.ref.uid, pending);
    if (this.deps.connected()) this.transmit(pending);
  }

  /** Sends what is pending for `uid` again, as a new transmission. */
  send(uid: string): void {
    const pending = this.pending.get(uid);
    if (pending) this.transmit(pending);
  }

  /** [SYNC-5] What the transmission `parentId` carried, if an ack of it still counts; what is pending for its uid settles when it was that one. */
  acked(parentId: string): { type: ObjectDraft['type']; ref: ObjectRef } | undefined {
    const acked = this.unacked.get(parentId);
    if (!acked) return undefined;
    this.unacked.delete(parentId);
    const now = this.deps.clock.now();
    this.lastAckAt = now;
    const pending = this.pending.get(acked.ref.uid);
    if (pending?.sent?.id === parentId) {
      if (pending.sent.tries === 1) this.ackTimeout.observe(now - pending.sent.at);
      pending.sent.cancel?.();
      this.settle(acked.ref.uid);
    }
    return acked;
  }

  /**
   * The node refused the transmission `parentId`: no ack of it will come. `current`: it is what
   * is pending for the uid now (its re-sends stop), not one it superseded.
   */
  refused(parentId: string): { uid: string; current: boolean } | undefined {
    const refused = this.unacked.get(parentId);
    if (!refused) return undefined;
    this.unacked.delete(parentId);
    const pending = this.pending.get(refused.ref.uid);
    const current = pending?.sent?.id === parentId;
    if (current) pending.sent!.cancel?.();
    return { uid: refused.ref.uid, current };
  }

  /** The uid has nothing pending any more; an ack of what it superseded no longer counts. */
  settle(uid: string): void {
    const superseded = this.pending.get(uid)?.superseded;
    if (superseded) this.unacked.delete(superseded);
    this.pending.delete(uid);
  }

  /** A new session: nothing is pending, and no earlier transmission's ack counts. */
  clear(): void {
    this.stop();
    this.pending.clear();
    this.unacked.clear();
  }

  /** Stops every resend (the node went offline); what is pending stays. */
  stop(): void {
    for (const pending of this.pending.values()) pending.sent?.cancel?.();
  }

  private transmit(pending: Pending): void {
    const message = this.deps.transport.send(this.deps.node, pending.draft);
    this.unacked.set(message.id, { type: pending.draft.type, ref: pending.ref });
    pending.sent = { id: message.id, message, at: this.deps.clock.now(), tries: 1 };
    this.armResend(pending, this.ackTimeout.resendAfterMs(1));
  }

  /**
   * [SYNC-4] Re-sends the same envelope once its ack is overdue, the wait doubling with each
   * try up to resendMaxMs; while the node acked something within the last wait, waits again.
   */
  private armResend(pending: Pending, delayMs: number): void {
    const sent = pending.sent!;
    const { clock, timing } = this.deps;
    sent.cancel = clock.setTimer(delayMs, () => {
      if (!this.deps.connected() || this.pending.get(pending.ref.uid) !== pending) return;
      const wait = this.ackTimeout.resendAfterMs(sent.tries);
      const now = clock.now();
      const acking = now - this.lastAckAt < wait && now - sent.at < timing.resendMaxMs;
      if (acking) return this.armResend(pending, Math.max(1, this.lastAckAt + wait - now));
      this.deps.transport.resend(this.deps.node, sent.message);
      sent.tries++;
      this.armResend(pending, this.ackTimeout.resendAfterMs(sent.tries));
    });
  }
}
