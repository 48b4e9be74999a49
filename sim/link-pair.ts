import type { Socket } from 'node:net';
import { Lane, type LinkShaping, type LinkView } from './link-lane.js';

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
    const up = new Lane(client, upstream, link, 'up', (n) => link.countUp(n));
    const down = new Lane(upstream, client, link, 'down', (n) => link.countDown(n));
    this.lanes.push(up, down);
    this.watch(client, upstream, up);
    this.watch(upstream, client, down);
  }

  get open(): boolean {
    return !this.client.destroyed || (this.upstream !== undefined && !this.upstream.destroyed);
  }

  /** Bytes on their way through the shapers, up (client → upstream) and down. */
  queued(): { up: number; down: number } {
    return { up: this.lanes[0]?.queuedBytes ?? 0, down: this.lanes[1]?.queuedBytes ?? 0 };
  }

  /** The link's shaping changed (or ended). */
  shape(shaping: LinkShaping | undefined): void {
    for (const lane of this.lanes) lane.shape(shaping);
  }

  /** The cable is back: deliver held bytes, or reset a pair that lost an end meanwhile. */
  heal(): void {
    if (this.broken || !this.upstream) return this.reset();
    for (const lane of this.lanes) lane.flush();
  }

  /** Both ends get an RST. */
  reset(): void {
    this.closeLanes();
    resetSocket(this.client);
    if (this.upstream) resetSocket(this.upstream);
  }

  /** Drops both ends (used when the proxy itself shuts down). */
  destroy(): void {
    this.closeLanes();
    this.client.destroy();
    this.upstream?.destroy();
  }

  /** `lane` carries `socket`'s bytes to `other`: a FIN follows them through it, in order. */
  private watch(socket: Socket, other: Socket | undefined, lane?: Lane): void {
    socket.on('error', () => {}); // seen through 'close' (hadError) below
    const passFin = (): void => lane?.afterQueued(() => other?.destroyed === false && other.end());
    socket.on('end', () => {
      if (!this.link.isUp() || !other) this.broken = true;
      else passFin();
    });
    socket.on('close', (hadError: boolean) => {
      if (!this.link.isUp() || !other) this.broken = true;
      else if (hadError) resetSocket(other);
      else passFin();
      if (!this.open) {
        this.closeLanes();
        this.onGone(this);
      }
    });
  }

  private closeLanes(): void {
    for (const lane of this.lanes) lane.close();
  }
}
