/**
 * Two lanes per broker client, so that control messages (heartbeats, acks, statuses) are never
 * stuck behind bulk ones (stream frames, log chunks, large objects) within one MQTT connection
 * (docs/protocol.md, "Control ahead of bulk"). A control message is handed to the client at
 * once; a bulk one only while the client's socket holds few unsent bytes and few bulk bytes
 * await the broker's PUBACK, the rest waiting in order in a bounded queue. The decision is pure
 * (`decide`, `headMayGo`); `PublishLanes` applies it to one client's session.
 */

/** Which lane a publisher asks for: `by-size` is bulk above `bulkAboveBytes`, control otherwise. */
export type LaneHint = 'control' | 'bulk' | 'by-size';
export type Lane = 'control' | 'bulk';

/** How a message is ordered against others on the same client. */
export interface PublishOrder {
  /** Default `by-size`. */
  lane?: LaneHint;
  /** A message never overtakes a queued one of the same topic and key (an object's versions and its tombstone). */
  key?: string;
  /** A message that must follow everything queued before it on its topic (`synced` closes the difference sent before it). */
  fence?: boolean;
}

export interface LaneLimits {
  /** A `by-size` message above this goes bulk. */
  bulkAboveBytes: number;
  /** Bulk is handed over only while the socket holds fewer unsent bytes than this. */
  maxUnsentBytes: number;
  /** ... and fewer bulk bytes than this await the broker's PUBACK (on the link, in its queue, at the broker). */
  maxInFlightBulkBytes: number;
  /** Bulk beyond this many queued bytes is refused (one message alone is always taken). */
  maxQueuedBytes: number;
}

export const DEFAULT_LANE_LIMITS: LaneLimits = {
  bulkAboveBytes: 16 * 1024,
  maxUnsentBytes: 16 * 1024,
  maxInFlightBulkBytes: 64 * 1024,
  // Stream windows bound what streams queue (256 KiB each, 256 streams at the hub).
  maxQueuedBytes: 64 * 1024 * 1024,
};

/** A message waiting in the queue. */
export interface Queued {
  topic: string;
  bytes: number;
  lane: Lane;
  key?: string;
}

/** What the decision reads of one client. */
export interface LaneState {
  /** How many messages wait, in all and under each of their `orderKeys`. */
  queuedCount: number;
  queuedBy: ReadonlyMap<string, number>;
  queuedBytes: number;
  /** The socket's unsent bytes (its writableLength). */
  unsentBytes: number;
  /** Bulk bytes handed to the client and not yet acknowledged by the broker. */
  inFlightBulkBytes: number;
}

export type Decision = 'write' | 'queue' | 'refuse';

export function laneOf(order: PublishOrder, bytes: number, limits: LaneLimits): Lane {
  const hint = order.lane ?? 'by-size';
  if (hint === 'by-size') return bytes > limits.bulkAboveBytes ? 'bulk' : 'control';
  return hint;
}

/** What a queued message is counted under: its topic, and its topic and key. */
export function orderKeys(topic: string, key: string | undefined): string[] {
  return key === undefined ? [topic] : [topic, `${topic}\u0000${key}`];
}

/** Whether a message must wait behind what is queued: a fence behind anything of its topic, others behind their own key. */
export function mustFollow(topic: string, order: PublishOrder, queuedBy: ReadonlyMap<string, number>): boolean {
  // Nothing of its topic waits, so nothing of its key either (the usual case: no key to build).
  if ((queuedBy.get(topic) ?? 0) === 0) return false;
  return order.fence === true || (order.key !== undefined && (queuedBy.get(orderKeys(topic, order.key)[1]!) ?? 0) > 0);
}

/** Whether bulk may be handed to the client now. */
export function bulkMayGo(state: LaneState, limits: LaneLimits): boolean {
  return state.unsentBytes < limits.maxUnsentBytes && state.inFlightBulkBytes < limits.maxInFlightBulkBytes;
}

/** Control goes at once unless it must follow a queued message; bulk goes when nothing is queued and the client has room. */
export function decide(topic: string, bytes: number, order: PublishOrder, state: LaneState, limits: LaneLimits): Decision {
  const lane = laneOf(order, bytes, limits);
  if (lane === 'control') return mustFollow(topic, order, state.queuedBy) ? 'queue' : 'write';
  if (state.queuedCount === 0 && bulkMayGo(state, limits)) return 'write';
  return state.queuedBytes > 0 && state.queuedBytes + bytes > limits.maxQueuedBytes ? 'refuse' : 'queue';
}

/** Whether the queue's head may be handed over now: control that waited for its turn goes, bulk when there is room. */
export function headMayGo(head: Queued, state: LaneState, limits: LaneLimits): boolean {
  return head.lane === 'control' || bulkMayGo(state, limits);
}

/** One client's session as the lanes see it. */
export interface LaneSink {
  /** Bytes written to the socket and not yet sent (writableLength). */
  unsentBytes(): number;
  /** Publishes QoS 1; resolves on the broker's PUBACK, rejects when the session ends first. */
  write(topic: string, payload: Buffer): Promise<void>;
}

interface Waiting extends Queued {
  payload: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * The lanes of one client's session. Call `flush` when its socket drains; `close` when the
 * session ends (what still waits rejects, as an unacknowledged publish does: the protocol
 * above sends it again).
 */
export class PublishLanes {
  private readonly queue: Waiting[] = [];
  private readonly queuedBy = new Map<string, number>();
  private queuedBytes = 0;
  private inFlightBulkBytes = 0;
  private closed: Error | undefined;

  constructor(
    private readonly sink: LaneSink,
    private readonly limits: LaneLimits = DEFAULT_LANE_LIMITS,
  ) {}

  publish(topic: string, payload: Buffer, order: PublishOrder = {}): Promise<void> {
    if (this.closed) return Promise.reject(this.closed);
    const bytes = payload.length;
    const decision = decide(topic, bytes, order, this.state(), this.limits);
    if (decision === 'write') return this.write(laneOf(order, bytes, this.limits), topic, payload);
    if (decision === 'refuse') return Promise.reject(new Error(`the bulk lane is full (${this.queuedBytes} bytes queued)`));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, bytes, lane: laneOf(order, bytes, this.limits), ...(order.key !== undefined ? { key: order.key } : {}), payload, resolve, reject });
      this.count(topic, order.key, bytes, 1);
    });
  }

  /** Hands over, in order, what may go now. */
  flush(): void {
    while (!this.closed && this.queue.length > 0 && headMayGo(this.queue[0]!, this.state(), this.limits)) {
      const next = this.queue.shift()!;
      this.count(next.topic, next.key, next.bytes, -1);
      this.write(next.lane, next.topic, next.payload).then(next.resolve, next.reject);
    }
  }

  /** The session ended: everything still queued rejects with `err`, and so does every later publish. */
  close(err: Error): void {
    this.closed = err;
    for (const waiting of this.queue.splice(0)) waiting.reject(err);
    this.queuedBy.clear();
    this.queuedBytes = 0;
  }

  /** Bytes waiting in the queue. */
  get waitingBytes(): number {
    return this.queuedBytes;
  }

  private state(): LaneState {
    return { queuedCount: this.queue.length, queuedBy: this.queuedBy, queuedBytes: this.queuedBytes, unsentBytes: this.sink.unsentBytes(), inFlightBulkBytes: this.inFlightBulkBytes };
  }

  private count(topic: string, key: string | undefined, bytes: number, sign: 1 | -1): void {
    this.queuedBytes += sign * bytes;
    for (const k of orderKeys(topic, key)) {
      const n = (this.queuedBy.get(k) ?? 0) + sign;
      if (n === 0) this.queuedBy.delete(k);
      else this.queuedBy.set(k, n);
    }
  }

  private write(lane: Lane, topic: string, payload: Buffer): Promise<void> {
    const written = this.sink.write(topic, payload);
    if (lane === 'bulk') {
      this.inFlightBulkBytes += payload.length;
      const settled = (): void => {
        this.inFlightBulkBytes -= payload.length;
        this.flush();
      };
      written.then(settled, settled);
    }
    return written;
  }
}
