import type { Writable } from 'node:stream';

/** Written bytes wait for the end of the turn of the event loop until there are this many. */
export const COALESCE_BYTES = 64 * 1024;

/**
 * Writes to a socket that go out together: what is written in one turn of the event loop is
 * handed to the socket at the end of the turn, or as soon as COALESCE_BYTES wait. One system
 * call carries many MQTT packets (the hub gets every node's messages on its one connection)
 * instead of one per packet, or one per piece of a packet. Nothing waits longer than the turn.
 */
export class CoalescedWrites {
  private pendingBytes = 0;
  private flushScheduled = false;

  constructor(private readonly socket: Pick<Writable, 'cork' | 'uncork' | 'write'>) {}

  write(chunk: Buffer): void {
    if (this.pendingBytes === 0) {
      this.socket.cork();
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.endOfTurn);
      }
    }
    this.socket.write(chunk); // a failure surfaces as the socket's error
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= COALESCE_BYTES) this.flush();
  }

  private readonly endOfTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /** Hands what waits to the socket now (before it is destroyed: a CONNACK refusing the client still goes). */
  flush(): void {
    if (this.pendingBytes === 0) return;
    this.pendingBytes = 0;
    this.socket.uncork();
  }
}
