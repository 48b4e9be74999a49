import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { Cancel, Clock } from '../../shared/clock.js';
import { PacketFramer } from './packet-framer.js';

export interface ConnectionLimits {
  /** The largest MQTT packet a client may send, header included. */
  maxPacketBytes: number;
  /** PUBLISH packets per second a client may send on average... */
  publishesPerSecond: number;
  /** ...and at once, after a quiet spell. */
  publishBurst: number;
}

export interface GuardEvents {
  /** The connection is closed: a packet over the size limit, or bytes that are not MQTT. */
  refused(reason: 'oversized-packet' | 'not-mqtt', detail: string): void;
  /** Reading is paused until the client is back under its rate. */
  throttled(): void;
}

/**
 * A client connection as the broker sees it: the socket's bytes pass through unchanged while
 * a PacketFramer watches them. A packet over the size limit closes the connection before the
 * broker buffers it; a client over its PUBLISH rate is slowed (its socket is not read for a
 * while, so TCP pushes back) rather than dropped, so QoS 1 loses nothing.
 */
export class GuardedConnection extends Duplex {
  readonly remoteAddress: string | undefined;
  private readonly framer: PacketFramer;
  private tokens: number;
  private refilledAt: number;
  private unlimited = false;
  private resumeTimer: Cancel | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly limits: ConnectionLimits,
    private readonly clock: Clock,
    private readonly events: GuardEvents,
  ) {
    super({ allowHalfOpen: false });
    this.remoteAddress = socket.remoteAddress;
    this.framer = new PacketFramer(limits.maxPacketBytes);
    this.tokens = limits.publishBurst;
    this.refilledAt = clock.now();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.push(null));
    socket.on('close', () => this.destroy());
    socket.on('error', (err) => this.destroy(err));
  }

  /** No rate limit for this client (the cloud hub publishes for every node). */
  exemptFromRate(): void {
    this.unlimited = true;
    this.resumeTimer?.();
    if (this.socket.isPaused()) this.socket.resume();
  }

  override _read(): void {
    if (this.resumeTimer === undefined) this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk, done);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.resumeTimer?.();
    this.socket.destroy();
    done(err);
  }

  private onData(chunk: Buffer): void {
    const framed = this.framer.feed(chunk);
    if (framed.oversized !== undefined || framed.malformed) {
      const detail = framed.malformed ? 'a remaining length longer than 4 bytes' : `${framed.oversized} bytes (limit ${this.limits.maxPacketBytes})`;
      this.events.refused(framed.malformed ? 'not-mqtt' : 'oversized-packet', detail);
      this.socket.destroy();
      return;
    }
    if (!this.push(chunk)) this.socket.pause();
    if (framed.publishes > 0 && !this.unlimited) this.spend(framed.publishes);
  }

  /** Token bucket: `publishBurst` deep, refilled at `publishesPerSecond`. */
  private spend(publishes: number): void {
    const now = this.clock.now();
    const { publishesPerSecond: rate, publishBurst: burst } = this.limits;
    this.tokens = Math.min(burst, this.tokens + ((now - this.refilledAt) * rate) / 1000) - publishes;
    this.refilledAt = now;
    if (this.tokens >= 0 || this.resumeTimer) return;
    this.events.throttled();
    this.socket.pause();
    this.resumeTimer = this.clock.setTimer(Math.ceil((-this.tokens * 1000) / rate), () => {
      this.resumeTimer = undefined;
      if (!this.destroyed) this.socket.resume();
    });
  }
}
