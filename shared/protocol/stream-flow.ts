import type { FrameDraft, StreamFrame } from './stream-frame.js';

/**
 * [SYNC-20] The order of one stream's frames, in each direction: the sender numbers them from
 * 0; the receiver takes the next one, drops a duplicate (QoS 1 may deliver twice) and calls a
 * gap lost (the stream then ends with an error: never deliver what may be corrupted). An `end`
 * is terminal: taken unless frames before it were lost.
 */
export class FrameOrder {
  private sent = 0;
  private expected: number;

  /** `received`: frames already taken (1 at the edge, which took the open). */
  constructor(
    readonly stream: string,
    received = 0,
  ) {
    this.expected = received;
  }

  stamp(draft: FrameDraft): StreamFrame {
    return { ...draft, stream: this.stream, seq: this.sent++ } as StreamFrame;
  }

  /** What to do with a frame that arrived. */
  check(frame: StreamFrame): 'next' | 'duplicate' | 'gap' {
    if (frame.seq > this.expected) return 'gap';
    if (frame.seq < this.expected && frame.type !== 'end') return 'duplicate';
    this.expected++;
    return 'next';
  }

  /** The gap's words, for the error the stream ends with. */
  lost(from: string): string {
    return `frames of the stream from ${from} were lost (number ${this.expected} never came)`;
  }
}

/**
 * [SYNC-20] Credit-based flow control, per stream and direction: a sender may have sent at most
 * the receiver's window beyond the credit the receiver granted back; the receiver grants what
 * it has passed on (read by the client, written to a process), in batches of a quarter window.
 * A blocked sender has used its whole window, so the receiver's batch is then due: no deadlock.
 */

/** The sender's side: how much it may still send. */
export class SendWindow {
  private room: number;
  private waiters: (() => void)[] = [];

  constructor(initial: number) {
    this.room = initial;
  }

  get available(): number {
    return this.room;
  }

  take(bytes: number): void {
    this.room -= bytes;
  }

  grant(bytes: number): void {
    this.room += bytes;
    this.wake();
  }

  /** Resolves once there is room, or when woken (the stream ended: the caller looks why). */
  whenOpen(): Promise<void> {
    if (this.room > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

/** The receiver's side: holds the sender to the window, and says when credit is due. */
export class ReceiveWindow {
  /** Received and not yet granted back. */
  private outstanding = 0;
  /** Passed on and not yet granted back. */
  private passedOn = 0;

  constructor(readonly window: number) {}

  /** Counts bytes that arrived; false when the sender went beyond the window. */
  received(bytes: number): boolean {
    this.outstanding += bytes;
    return this.outstanding <= this.window;
  }

  /** Counts bytes passed on; the credit to grant now (0: not yet a batch). */
  passed(bytes: number): number {
    this.passedOn += bytes;
    if (this.passedOn < this.window / 4) return 0;
    const credit = this.passedOn;
    this.passedOn = 0;
    this.outstanding -= credit;
    return credit;
  }
}
