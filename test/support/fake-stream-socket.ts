import type { StreamSocket } from '../../cloud/apiserver/streams/stream-socket.js';

/**
 * A StreamSocket in memory: what the session sent, whether it paused, how it closed. Sends
 * stay "queued" (counted in bufferedAmount) until flush() writes them, as a slow client would;
 * without `autoPong`, pings wait for pong().
 */
export class FakeStreamSocket implements StreamSocket {
  readonly sent: Buffer[] = [];
  closedWith: number | undefined;
  paused = false;
  private queued: { bytes: number; done: () => void }[] = [];
  private messageListener: ((data: Buffer) => void) | undefined;
  private closeListeners: (() => void)[] = [];

  /** Pings sent; with `autoPong` off, each waits for pong(). */
  pings = 0;
  private pongs: (() => void)[] = [];

  constructor(private readonly autoFlush = true, private readonly autoPong = true) {}

  roundTrip(): Promise<void> {
    this.pings++;
    if (this.autoPong) return Promise.resolve();
    return new Promise((answered) => this.pongs.push(answered));
  }

  /** The client answers the pings sent so far. */
  pong(): void {
    for (const answered of this.pongs.splice(0)) answered();
  }

  send(data: Buffer): Promise<void> {
    this.sent.push(data);
    if (this.autoFlush) return Promise.resolve();
    return new Promise((done) => this.queued.push({ bytes: data.length, done }));
  }

  bufferedAmount(): number {
    return this.queued.reduce((sum, q) => sum + q.bytes, 0);
  }

  /** The client reads everything queued. */
  flush(): void {
    const queued = this.queued;
    this.queued = [];
    for (const q of queued) q.done();
  }

  close(code: number): void {
    this.closedWith = code;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  onMessage(listener: (data: Buffer) => void): void {
    this.messageListener = listener;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** A message from the client. */
  receive(data: Buffer): void {
    this.messageListener?.(data);
  }

  /** The client goes away. */
  drop(): void {
    for (const l of this.closeListeners) l();
    this.pong(); // a closed connection answers every wait
  }
}
