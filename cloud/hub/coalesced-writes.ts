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
  /** Buffers, and UTF-8 strings (a PUBLISH's topic) copied straight into the batch rather than made Buffers of their own first. */
  private pending: (Buffer | string)[] = [];
  private pendingBytes = 0;
  private flushScheduled = false;

  constructor(private readonly socket: Pick<Writable, 'write'>) {}

  /** Bytes written here that the socket has not been handed yet. */
  get waitingBytes(): number {
    return this.pendingBytes;
  }

  /** `chunk` as bytes, or as a string to go out UTF-8 encoded. */
  write(chunk: Buffer | string): void {
    this.pending.push(chunk);
    this.pendingBytes += typeof chunk === 'string' ? Buffer.byteLength(chunk, 'utf8') : chunk.length;
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
    const only = chunks.length === 1 ? chunks[0] : undefined;
    this.socket.write(Buffer.isBuffer(only) ? only : joined(chunks, bytes)); // a failure surfaces as the socket's error
  }
}

/** The pieces in one new buffer of `bytes`. */
function joined(chunks: readonly (Buffer | string)[], bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const chunk of chunks) at += typeof chunk === 'string' ? out.write(chunk, at, 'utf8') : chunk.copy(out, at);
  return out;
}
