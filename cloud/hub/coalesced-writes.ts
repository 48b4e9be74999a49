import type { Writable } from 'node:stream';

/** Written bytes wait for the end of the turn of the event loop until there are this many. */
export const COALESCE_BYTES = 64 * 1024;

/**
 * Writes to a socket that go out together: what is written in one turn of the event loop is
 * handed to the socket at the end of the turn, or as soon as COALESCE_BYTES wait, as one
 * buffer. One system call carries many MQTT packets (the hub gets every node's messages on its
 * one connection) instead of one per packet, or one per piece of a packet; and the socket's
 * stream does its bookkeeping once per batch, not once per piece (mqtt-packet writes a PUBLISH
 * in five). Nothing waits longer than the turn.
 */
export class CoalescedWrites {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushScheduled = false;

  constructor(private readonly socket: Pick<Writable, 'write'>) {}

  /** Bytes written here that the socket has not been handed yet. */
  get waitingBytes(): number {
    return this.pendingBytes;
  }

  write(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.endOfTurn);
    }
    if (this.pendingBytes >= COALESCE_BYTES) this.flush();
  }

  private readonly endOfTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /** Hands what waits to the socket now (before it is destroyed: a CONNACK refusing the client still goes). */
  flush(): void {
    const chunks = this.pending;
    if (chunks.length === 0) return;
    const bytes = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.socket.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes)); // a failure surfaces as the socket's error
  }
}
