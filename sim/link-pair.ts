import type { Socket } from 'node:net';

/** What a pair asks of its proxy: is the cable in, and where forwarded bytes are counted. */
export interface LinkView {
  isUp(): boolean;
  countUp(bytes: number): void;
  countDown(bytes: number): void;
}

/**
 * While the cable is out a sender's bytes wait, as in its TCP send buffer, and arrive on heal.
 * Past this many bytes per direction the proxy stops reading, and the kernel's window closes.
 */
const HOLD_LIMIT = 1 << 20;

/**
 * Closes a socket with an RST rather than a FIN. A socket still connecting is simply dropped,
 * and so is one whose FIN is on its way (end() called, not yet finished): libuv refuses an RST
 * while a shutdown is pending (EINVAL), and Node then marks the socket destroyed but never
 * closes its handle, which stays open for the life of the process.
 */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting || (socket.writableEnded && !socket.writableFinished)) socket.destroy();
  else socket.resetAndDestroy();
}

/** One direction of a pair: forwards while the link is up, holds bytes while it is cut. */
class Lane {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private blocked = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly link: LinkView,
    private readonly count: (bytes: number) => void,
  ) {
    from.on('data', (chunk: Buffer) => this.onData(chunk));
    to.on('drain', () => {
      this.blocked = false;
      this.resumeIfFree();
    });
  }

  /** Delivers what was held during the cut, then lets bytes flow again. */
  flush(): void {
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const chunk of held) this.forward(chunk);
    this.resumeIfFree();
  }

  private onData(chunk: Buffer): void {
    if (this.link.isUp()) return this.forward(chunk);
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes >= HOLD_LIMIT) this.from.pause();
  }

  private forward(chunk: Buffer): void {
    if (this.to.destroyed) return;
    this.count(chunk.length);
    if (!this.to.write(chunk)) {
      this.blocked = true;
      this.from.pause();
    }
  }

  private resumeIfFree(): void {
    if (this.link.isUp() && !this.blocked && !this.from.destroyed) this.from.resume();
  }
}

/**
 * A client connection and its upstream connection. `upstream` is absent for a connection
 * accepted while the cable was out: nothing reaches the far end, and heal resets it.
 * While the link is up, a FIN or RST on one side is passed to the other; while it is cut,
 * it is only remembered (`broken`), and heal resets whatever is still open.
 */
export class LinkPair {
  private broken = false;
  private readonly lanes: Lane[] = [];

  constructor(
    private readonly client: Socket,
    private readonly upstream: Socket | undefined,
    private readonly link: LinkView,
    private readonly onGone: (pair: LinkPair) => void,
  ) {
    if (!upstream) {
      client.on('data', () => {}); // a blackhole: read and drop
      this.watch(client, undefined);
      return;
    }
    this.lanes.push(new Lane(client, upstream, link, (n) => link.countUp(n)));
    this.lanes.push(new Lane(upstream, client, link, (n) => link.countDown(n)));
    this.watch(client, upstream);
    this.watch(upstream, client);
  }

  get open(): boolean {
    return !this.client.destroyed || (this.upstream !== undefined && !this.upstream.destroyed);
  }

  /** The cable is back: deliver held bytes, or reset a pair that lost an end meanwhile. */
  heal(): void {
    if (this.broken || !this.upstream) return this.reset();
    for (const lane of this.lanes) lane.flush();
  }

  /** Both ends get an RST. */
  reset(): void {
    resetSocket(this.client);
    if (this.upstream) resetSocket(this.upstream);
  }

  /** Drops both ends (used when the proxy itself shuts down). */
  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }

  private watch(socket: Socket, other: Socket | undefined): void {
    socket.on('error', () => {}); // seen through 'close' (hadError) below
    socket.on('end', () => {
      if (!this.link.isUp() || !other) this.broken = true;
      else if (!other.destroyed) other.end();
    });
    socket.on('close', (hadError: boolean) => {
      if (!this.link.isUp() || !other) this.broken = true;
      else if (hadError) resetSocket(other);
      else if (!other.destroyed) other.end();
      if (!this.open) this.onGone(this);
    });
  }
}
