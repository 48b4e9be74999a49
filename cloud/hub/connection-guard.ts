import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { Cancel, Clock } from '../../shared/clock.js';
import { CoalescedWrites } from './coalesced-writes.js';
import { PacketFramer } from './packet-framer.js';
import type { Budget, RateBudgets, TokenBucket } from './rate-budgets.js';

type WriteCallback = (err?: Error | null) => void;

/** Holds less than this apart belong to one throttling episode. */
const EPISODE_GAP_MS = 1000;

/** The longest keepalive a client may ask for (10 minutes): the embedded broker's, and Mosquitto's max_keepalive. */
export const MAX_KEEPALIVE_SECONDS = 600;

export interface ConnectionLimits {
  /** The largest MQTT packet a client may send, header included. */
  maxPacketBytes: number;
  /** PUBLISH packets per second a client may send on average... */
  publishesPerSecond: number;
  /** ...and at once, after a quiet spell. */
  publishBurst: number;
  /** A connection that has not sent a whole first packet (CONNECT) by then is closed. */
  connectTimeoutMs: number;
  /** The longest keepalive a client may ask for, in seconds; none (0) is refused too. */
  maxKeepaliveSeconds: number;
  /** Bytes waiting to go to a node (or a client not admitted yet) that does not read; over it, the client is cut off. The cloud hub has no such bound (see admitAsCloud). */
  maxQueuedBytes: number;
}

export interface GuardEvents {
  /** The connection is closed: a packet over the size limit, bytes that are not MQTT, no CONNECT in time, or a client that does not read. */
  refused(reason: 'oversized-packet' | 'not-mqtt' | 'connect-timeout' | 'slow-client', detail: string): void;
  /** A client went over its rate: what it sends next waits (once per episode). */
  throttled(): void;
}

/**
 * A client connection as the broker sees it: the socket's bytes pass through unchanged while
 * a PacketFramer watches them. A packet over the size limit closes the connection before the
 * broker buffers it. A client over its PUBLISH rate is slowed, not dropped: the bytes from
 * the first PUBLISH over the budget on are held, and the socket is not read until the budget
 * allows them, so TCP pushes back and QoS 1 loses nothing. Once CONNECT is authenticated, a
 * node spends its identity's budget (RateBudgets), whatever connection it comes on.
 *
 * Outbound, it never makes the broker wait: aedes finishes delivering a message only once
 * every subscriber's socket has taken it, and reads nothing more from the publisher
 * meanwhile, so one subscriber that stops reading would stall the hub (and through it every
 * node). Every write is taken at once and queued in the socket; a client whose queue grows
 * past its bound is cut off.
 */
export class GuardedConnection extends Duplex {
  readonly remoteAddress: string | undefined;
  private readonly framer: PacketFramer;
  /** Until admitted, a bucket of the connection's own; then its identity's (undefined: no limit). */
  private bucket: TokenBucket | undefined;
  private budget: Budget | undefined;
  /** Bytes read but not passed on yet: they start with a PUBLISH over the budget. */
  private held: Buffer | undefined;
  private waiting: Cancel | undefined;
  /** When bytes were last held back: a client held again within a second is the same episode, reported once. */
  private lastHeldAt = -Infinity;
  /** Until the first whole packet is in. */
  private connectTimer: Cancel | undefined;
  private maxQueuedBytes: number;
  private readonly writes: CoalescedWrites;

  constructor(
    private readonly socket: Socket,
    private readonly limits: ConnectionLimits,
    private readonly clock: Clock,
    private readonly events: GuardEvents,
    budgets: RateBudgets,
  ) {
    super({ allowHalfOpen: false });
    this.remoteAddress = socket.remoteAddress;
    this.framer = new PacketFramer(limits.maxPacketBytes);
    this.writes = new CoalescedWrites(socket);
    this.bucket = budgets.anonymous();
    this.maxQueuedBytes = limits.maxQueuedBytes;
    this.connectTimer = clock.setTimer(limits.connectTimeoutMs, () => {
      this.events.refused('connect-timeout', `no CONNECT within ${limits.connectTimeoutMs / 1000} s`);
      this.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.push(null));
    socket.on('close', () => this.destroy());
    socket.on('error', (err) => this.destroy(err));
  }

  /**
   * The cloud hub: no rate limit (it publishes for every node), and no bound on what waits for
   * it. Its client is the cloud's own (the hub password) and reads whatever it is sent as soon
   * as the event loop runs (mqtt.js takes each message on arrival; the work waits in the hub).
   * The embedded broker shares that loop, so what queues here is a loop busy elsewhere, not a
   * client that stopped reading: one poll round that reads 64 KB from each of 1,000 nodes
   * queues 64 MB before the hub reads any of it. Cutting the hub off would drop every node
   * (nodesWaitForCloud), whose reconnecting could do it again.
   */
  admitAsCloud(): void {
    this.bucket = undefined;
    this.maxQueuedBytes = Number.POSITIVE_INFINITY;
    if (this.waiting) this.release();
  }

  /** A node: from now on it spends its identity's budget, shared with its other connections. */
  admitWith(budget: Budget): void {
    this.budget?.release();
    this.budget = budget;
    this.bucket = budget.bucket;
    if (this.destroyed) budget.release();
  }

  override _read(): void {
    if (!this.waiting) this.socket.resume();
  }

  /**
   * aedes writes each packet in pieces (mqtt-packet: header, length, topic, id, payload), each
   * through write(): they go straight into this turn's batch, as _write would take them, without
   * the Writable's bookkeeping per piece (a UTF-8 string, the topic, without a Buffer of its own). Whatever the Writable must answer itself (a write
   * after end or destroy, anything that would queue behind an earlier write) goes through it.
   */
  override write(chunk: unknown, encoding?: BufferEncoding | WriteCallback, cb?: WriteCallback): boolean {
    const direct = typeof chunk === 'string' ? typeof encoding !== 'string' || encoding === 'utf8' : Buffer.isBuffer(chunk);
    if (!direct || this.destroyed || this.writableEnded || this.writableLength > 0) {
      return typeof encoding === 'function' ? super.write(chunk, encoding) : super.write(chunk, encoding ?? 'utf8', cb);
    }
    this.send(chunk as Buffer | string);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (done) process.nextTick(done, null);
    return true;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.send(chunk);
    done();
  }

  /** To the socket, with what else this turn of the event loop writes; a client (not the hub) with more queued than its bound is cut off. */
  private send(chunk: Buffer | string): void {
    this.writes.write(chunk);
    const queued = this.socket.writableLength + this.writes.waitingBytes;
    if (queued > this.maxQueuedBytes && !this.destroyed) {
      this.events.refused('slow-client', `${queued} bytes queued for a client that does not read (limit ${this.maxQueuedBytes})`);
      this.destroy();
    }
  }

  /**
   * mqtt-packet corks the stream around the pieces of each packet (header, topic, id, payload):
   * no need, what is written waits for the end of the turn anyway (CoalescedWrites). Without
   * this the pieces would wait in this stream's buffer for a tick, then pass on one by one.
   */
  override cork(): void {}

  override uncork(): void {}

  override _final(done: (err?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.connectTimer?.();
    this.budget?.release();
    this.waiting?.();
    this.writes.flush();
    this.socket.destroy();
    done(err);
  }

  private onData(chunk: Buffer): void {
    const framed = this.framer.feed(chunk, this.mayPublish);
    if (framed.oversized !== undefined || framed.malformed) {
      const detail = framed.malformed ? 'a remaining length longer than 4 bytes' : `${framed.oversized} bytes (limit ${this.limits.maxPacketBytes})`;
      this.events.refused(framed.malformed ? 'not-mqtt' : 'oversized-packet', detail);
      this.socket.destroy();
      return;
    }
    if (this.connectTimer && this.framer.packetsRead > 0) {
      this.connectTimer();
      this.connectTimer = undefined;
    }
    const passed = framed.stoppedAt === undefined ? chunk : chunk.subarray(0, framed.stoppedAt);
    if (passed.length > 0 && !this.push(passed)) this.socket.pause();
    if (framed.stoppedAt !== undefined) this.hold(chunk.subarray(framed.stoppedAt));
  }

  /** Whether the next PUBLISH may pass now: a token from the budget (the hub has none to spend). */
  private readonly mayPublish = (): boolean => this.bucket?.take(this.clock.now()) ?? true;

  /** Holds `rest` until a tenth of a second's worth of PUBLISHes may pass (or one, at low rates). */
  private hold(rest: Buffer): void {
    this.held = rest;
    this.socket.pause();
    const now = this.clock.now();
    if (now - this.lastHeldAt > EPISODE_GAP_MS) this.events.throttled();
    this.lastHeldAt = now;
    const { publishesPerSecond: rate, publishBurst: burst } = this.limits;
    const batch = Math.max(1, Math.min(burst, rate / 10));
    this.waiting = this.clock.setTimer(this.bucket?.msUntil(batch, now) ?? 0, () => this.release());
  }

  private release(): void {
    this.waiting?.();
    this.waiting = undefined;
    const held = this.held;
    this.held = undefined;
    if (this.destroyed) return;
    if (held) this.onData(held);
    if (!this.waiting) this.socket.resume();
  }
}
