import type { Cancel, Clock } from '../../shared/clock.js';
import { LaneTiming, MTU } from './lane-timing.js';
import type { LaneProfile } from './profile.js';

/** What shaping did to a link's bytes, summed over its connections and directions. */
export interface ShapeCounters {
  /** Chunks (and their bytes) that arrived later than they were sent. */
  delayedChunks: number;
  delayedBytes: number;
  /** Segments lost on the way and retransmitted (each loss counted). */
  droppedSegments: number;
}

export const emptyShapeCounters = (): ShapeCounters => ({ delayedChunks: 0, delayedBytes: 0, droppedSegments: 0 });

/** A rate cap's queue holds this much of the rate (at least 16 segments); past it the sender waits. */
export const QUEUE_SECONDS = 1;
/** Bytes sent but not yet delivered (TCP's window, more or less); past it the sender waits. */
export const WINDOW_BYTES = 1 << 20;

export function queueLimit(rateBps: number): number {
  return rateBps > 0 ? Math.max(16 * MTU, (rateBps / 8) * QUEUE_SECONDS) : Infinity;
}

export interface ShapedLaneDeps {
  clock: Clock;
  random: () => number;
  /**
   * The link's timing in this direction, shared by every connection through it: one bottleneck
   * queue, FIFO, whose backlog every lane's backpressure judges by. None: a timing of its own.
   */
  timing?: LaneTiming;
  counters: ShapeCounters;
  /** Hands a chunk to the far end. */
  deliver(chunk: Buffer): void;
  /** False while the cable is out: due chunks wait, in order, until `kick()`. */
  canDeliver(): boolean;
  /** The queue filled up (true: stop reading the sender) or drained again (false). */
  onFull(full: boolean): void;
}

interface Pending {
  chunk: Buffer;
  at: number;
}

/**
 * One direction of a shaped link: every chunk waits until its LaneTiming says it arrives, then is
 * delivered in order. A full queue is backpressure (onFull), never a dropped byte.
 */
export class ShapedLane {
  private readonly timing: LaneTiming;
  private fifo: Pending[] = [];
  private head = 0;
  private bytes = 0;
  private full = false;
  private timer: Cancel | undefined;
  private timedFor: Pending | undefined;
  private wake: Cancel | undefined;

  constructor(
    private profile: LaneProfile,
    private readonly deps: ShapedLaneDeps,
  ) {
    this.timing = deps.timing ?? new LaneTiming(profile, deps.random);
  }

  /** Bytes accepted and not yet delivered. */
  get queuedBytes(): number {
    return this.bytes;
  }

  get isFull(): boolean {
    return this.full;
  }

  setProfile(profile: LaneProfile): void {
    this.profile = profile;
    this.timing.setProfile(profile);
    this.checkFull();
  }

  push(chunk: Buffer): void {
    const now = this.deps.clock.now();
    const { deliverAt, lostSegments } = this.timing.admit(now, chunk.length);
    const c = this.deps.counters;
    c.droppedSegments += lostSegments;
    if (deliverAt > now) {
      c.delayedChunks++;
      c.delayedBytes += chunk.length;
    }
    this.fifo.push({ chunk, at: deliverAt });
    this.bytes += chunk.length;
    this.deliverDue();
  }

  /** Delivers whatever is due (the cable is back). */
  kick(): void {
    this.deliverDue();
  }

  /** Empties the lane without delivering: its chunks, in order (the profile is being cleared). */
  takeAll(): Buffer[] {
    const chunks = this.fifo.slice(this.head).map((p) => p.chunk);
    this.fifo = [];
    this.head = 0;
    this.bytes = 0;
    this.close();
    if (this.full) {
      this.full = false;
      this.deps.onFull(false);
    }
    return chunks;
  }

  /** Cancels its timers. */
  close(): void {
    this.timer?.();
    this.wake?.();
    this.timer = this.wake = this.timedFor = undefined;
  }

  private deliverDue(): void {
    const now = this.deps.clock.now();
    while (this.head < this.fifo.length && this.fifo[this.head]!.at <= now && this.deps.canDeliver()) {
      const { chunk } = this.fifo[this.head++]!;
      this.bytes -= chunk.length;
      this.deps.deliver(chunk);
    }
    if (this.head > 1024 && this.head * 2 > this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
    this.schedule(now);
    this.checkFull();
  }

  /** One timer, for the chunk at the head (kept while the head stays the same one). */
  private schedule(now: number): void {
    const next = this.fifo[this.head];
    if (this.timer && next === this.timedFor) return;
    this.timer?.();
    this.timer = this.timedFor = undefined;
    if (!next || !this.deps.canDeliver()) return;
    this.timedFor = next;
    this.timer = this.deps.clock.setTimer(next.at - now, () => {
      this.timer = this.timedFor = undefined;
      this.deliverDue();
    });
  }

  /** Full past the queue's limit or the window; not full again until both are half empty. */
  private checkFull(): void {
    const now = this.deps.clock.now();
    const limit = queueLimit(this.profile.rateBps);
    const backlog = this.timing.backlog(now);
    const full = this.full ? backlog > limit / 2 || this.bytes > WINDOW_BYTES / 2 : backlog >= limit || this.bytes >= WINDOW_BYTES;
    this.wake?.();
    this.wake = undefined;
    if (full && backlog > limit / 2) {
      // The backlog drains with time alone: look again once it is down to half.
      this.wake = this.deps.clock.setTimer(Math.max(1, this.timing.backlogDrainsTo(now, limit / 2) - now), () => {
        this.wake = undefined;
        this.checkFull();
      });
    }
    if (full === this.full) return;
    this.full = full;
    this.deps.onFull(full);
  }
}
