import type { Socket } from 'node:net';
import type { Clock } from '../shared/clock.js';
import { laneProfile, type LinkProfile } from './link-shape/profile.js';
import type { LaneTiming } from './link-shape/lane-timing.js';
import { ShapedLane, type ShapeCounters } from './link-shape/shaped-lane.js';

/** How a shaped link's lanes shape: its profile, on the cluster's clock. */
export interface LinkShaping {
  profile: LinkProfile;
  clock: Clock;
  random: () => number;
  counters: ShapeCounters;
  /** The link's one bottleneck per direction, shared by all its connections (docs/operations.md). */
  timings: Record<Direction, LaneTiming>;
}

/** What a pair asks of its proxy: is the cable in, is it shaped, and where forwarded bytes are counted. */
export interface LinkView {
  isUp(): boolean;
  /** Undefined while nothing is shaped: the lanes then forward each chunk at once (the fast path). */
  shaping(): LinkShaping | undefined;
  countUp(bytes: number): void;
  countDown(bytes: number): void;
}

/**
 * While the cable is out a sender's bytes wait, as in its TCP send buffer, and arrive on heal.
 * Past this many bytes per direction the proxy stops reading, and the kernel's window closes.
 */
const HOLD_LIMIT = 1 << 20;

export type Direction = 'up' | 'down';

/**
 * One direction of a pair: forwards while the link is up, holds bytes while it is cut. When the
 * link is shaped, chunks pass through a ShapedLane first; the cable's gate is after it, so a cut
 * also stops what is on its way, and a heal delivers it before what was held.
 */
export class Lane {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private blocked = false;
  private shaper: ShapedLane | undefined;
  /** A FIN waiting for the bytes before it. */
  private onEmpty: (() => void) | undefined;
  private flushing = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly link: LinkView,
    private readonly direction: Direction,
    private readonly count: (bytes: number) => void,
  ) {
    from.on('data', (chunk: Buffer) => this.onData(chunk));
    to.on('drain', () => {
      this.blocked = false;
      this.resumeIfFree();
    });
    this.shape(link.shaping());
  }

  get queuedBytes(): number {
    return this.shaper?.queuedBytes ?? 0;
  }

  /** Takes the link's (new) shaping; without one, what the shaper held goes on unshaped, in order. */
  shape(shaping: LinkShaping | undefined): void {
    if (shaping) {
      const profile = laneProfile(shaping.profile, this.direction);
      if (this.shaper) return this.shaper.setProfile(profile);
      this.shaper = new ShapedLane(profile, {
        clock: shaping.clock,
        random: shaping.random,
        timing: shaping.timings[this.direction],
        counters: shaping.counters,
        deliver: (chunk) => this.write(chunk),
        canDeliver: () => this.link.isUp(),
        onFull: (full) => (full ? this.from.pause() : this.resumeIfFree()),
      });
      return;
    }
    const chunks = this.shaper?.takeAll() ?? [];
    this.shaper = undefined;
    if (this.link.isUp()) for (const chunk of chunks) this.write(chunk);
    else {
      this.held.unshift(...chunks);
      this.heldBytes += chunks.reduce((n, c) => n + c.length, 0);
    }
    this.finIfDelivered();
  }

  /** Delivers what was on its way and what was held during the cut, then lets bytes flow again. */
  flush(): void {
    this.flushing = true;
    this.shaper?.kick();
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const chunk of held) this.forward(chunk);
    this.flushing = false;
    this.finIfDelivered();
    this.resumeIfFree();
  }

  /** Runs `fn` once what the shaper holds has been delivered (at once when it holds nothing). */
  afterQueued(fn: () => void): void {
    this.onEmpty = fn;
    this.finIfDelivered();
  }

  /** Cancels the shaper's timers (the pair is gone). */
  close(): void {
    this.shaper?.close();
  }

  private onData(chunk: Buffer): void {
    if (this.link.isUp()) return this.forward(chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes >= HOLD_LIMIT) this.from.pause();
  }

  private forward(chunk: Buffer): void {
    if (this.shaper) this.shaper.push(chunk);
    else this.write(chunk);
  }

  private write(chunk: Buffer): void {
    if (this.to.destroyed) return;
    this.count(chunk.length);
    if (!this.to.write(chunk)) {
      this.blocked = true;
      this.from.pause();
    }
    if (this.shaper && !this.flushing) this.finIfDelivered();
  }

  private finIfDelivered(): void {
    if (!this.onEmpty || this.queuedBytes > 0 || this.held.length > 0 || !this.link.isUp()) return;
    const fin = this.onEmpty;
    this.onEmpty = undefined;
    fin();
  }

  private resumeIfFree(): void {
    if (this.link.isUp() && !this.blocked && !this.shaper?.isFull && !this.from.destroyed) this.from.resume();
  }
}

