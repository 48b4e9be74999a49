import type { BrokerPacket, ClientPacket } from './packets.js';
import { packetBytes } from './packets.js';

/** What the owner of one end is told: a packet came, or the far end is gone (a FIN after its packets, or a reset). */
export interface WireListener<In> {
  packet(packet: In): void;
  closed(): void;
}

/** One end of a connection, as its owner sees it. */
export interface WireEnd<In, Out> {
  listen(listener: WireListener<In>): void;
  /** Sends in order; nothing arrives while the link is cut, and nothing at all once either end is closed. */
  send(packet: Out): void;
  /** Closes this end at once; the far end learns after the packets sent before (or on heal, as a reset, if the link is cut). */
  close(): void;
  readonly open: boolean;
  /** Bytes sent from this end that have not arrived yet (held while the link is cut). */
  readonly queuedBytes: number;
}

export type ClientEnd = WireEnd<BrokerPacket, ClientPacket>;
export type BrokerEnd = WireEnd<ClientPacket, BrokerPacket>;

const FIN = Symbol('fin');
type Item<P> = { packet: P; bytes: number } | typeof FIN;

/** One direction of a connection: in order, asynchronously, and only while the link is up. */
class Lane<P extends ClientPacket | BrokerPacket> {
  private items: Item<P>[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(
    private readonly isUp: () => boolean,
    private readonly deliver: (item: P | typeof FIN) => void,
  ) {}

  get queuedBytes(): number {
    return this.bytes;
  }

  push(item: P | typeof FIN): void {
    const bytes = item === FIN ? 0 : packetBytes(item);
    this.items.push(item === FIN ? FIN : { packet: item, bytes });
    this.bytes += bytes;
    this.flush();
  }

  /** Never inside the sender's call: a real broker answers later, and so does this one. */
  flush(): void {
    if (this.scheduled || this.items.length === 0 || !this.isUp()) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  clear(): void {
    this.items = [];
    this.bytes = 0;
  }

  private drain(): void {
    this.scheduled = false;
    while (this.items.length > 0 && this.isUp()) {
      const item = this.items.shift()!;
      if (item !== FIN) this.bytes -= item.bytes;
      this.deliver(item === FIN ? FIN : item.packet);
    }
  }
}

type Side = 'client' | 'broker';

/**
 * A connection between a client and the broker, through a link that can be cut as
 * sim/link-proxy.ts cuts a cable: while cut, packets wait both ways and neither end is told
 * anything; on heal they arrive, unless an end closed meanwhile: then the other is reset.
 * A wire made while the link is cut reaches no broker (`reachesBroker` false) and is reset on heal.
 */
export class Wire {
  readonly client: ClientEnd;
  readonly broker: BrokerEnd;
  private readonly isOpen: Record<Side, boolean>;
  private broken = false;
  private readonly listeners: { client?: WireListener<BrokerPacket>; broker?: WireListener<ClientPacket> } = {};
  private readonly toBroker: Lane<ClientPacket>;
  private readonly toClient: Lane<BrokerPacket>;

  constructor(
    readonly name: string,
    private readonly isUp: () => boolean,
    reachesBroker: boolean,
    private readonly onGone: (wire: Wire) => void,
  ) {
    this.isOpen = { client: true, broker: reachesBroker };
    this.toBroker = new Lane(isUp, (item) => (item === FIN ? this.farEndClosed('broker') : this.listeners.broker?.packet(item)));
    this.toClient = new Lane(isUp, (item) => (item === FIN ? this.farEndClosed('client') : this.listeners.client?.packet(item)));
    this.client = this.end('client', this.toBroker, (l) => (this.listeners.client = l));
    this.broker = this.end('broker', this.toClient, (l) => (this.listeners.broker = l));
  }

  /** The link is back: held packets go on, or both ends are reset if one closed meanwhile. */
  heal(): void {
    if (this.broken || !this.isOpen.broker) return this.reset();
    this.toBroker.flush();
    this.toClient.flush();
  }

  /** An RST to both ends, cut or not: each open end learns at once (asynchronously). */
  reset(): void {
    this.toBroker.clear();
    this.toClient.clear();
    for (const side of ['client', 'broker'] as const) {
      if (!this.isOpen[side]) continue;
      this.isOpen[side] = false;
      queueMicrotask(() => this.listeners[side]?.closed());
    }
    this.onGone(this);
  }

  private end<In, Out extends ClientPacket | BrokerPacket>(side: Side, out: Lane<Out>, listen: (l: WireListener<In>) => void): WireEnd<In, Out> {
    const isOpen = this.isOpen;
    return {
      listen,
      send: (packet) => {
        if (isOpen.client && isOpen.broker) out.push(packet);
      },
      close: () => this.closeFrom(side),
      get open() {
        return isOpen[side];
      },
      get queuedBytes() {
        return out.queuedBytes;
      },
    };
  }

  private outOf(side: Side): Lane<ClientPacket> | Lane<BrokerPacket> {
    return side === 'client' ? this.toBroker : this.toClient;
  }

  private into(side: Side): Lane<ClientPacket> | Lane<BrokerPacket> {
    return side === 'client' ? this.toClient : this.toBroker;
  }

  private closeFrom(side: Side): void {
    if (!this.isOpen[side]) return;
    this.isOpen[side] = false;
    this.into(side).clear();
    if (!this.isOpen[side === 'client' ? 'broker' : 'client']) return this.onGone(this);
    if (this.isUp()) this.outOf(side).push(FIN);
    else this.broken = true;
  }

  private farEndClosed(side: Side): void {
    if (!this.isOpen[side]) return;
    this.isOpen[side] = false;
    this.outOf(side).clear();
    this.listeners[side]?.closed();
    this.onGone(this);
  }
}
