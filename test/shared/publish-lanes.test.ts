import { describe, expect, it } from 'vitest';
import { decide, DEFAULT_LANE_LIMITS, orderKeys, PublishLanes, type LaneState, type PublishOrder, type Queued } from '../../shared/publish-lanes.js';

const limits = DEFAULT_LANE_LIMITS;
const KiB = 1024;
const idle: LaneState = { queuedCount: 0, queuedBy: new Map(), queuedBytes: 0, unsentBytes: 0, inFlightBulkBytes: 0 };
/** `idle` with `queued` waiting. */
const waiting = (queued: Queued[], more: Partial<LaneState> = {}): LaneState => {
  const queuedBy = new Map<string, number>();
  for (const q of queued) for (const k of orderKeys(q.topic, q.key)) queuedBy.set(k, (queuedBy.get(k) ?? 0) + 1);
  return { ...idle, queuedCount: queued.length, queuedBy, queuedBytes: queued.reduce((n, q) => n + q.bytes, 0), ...more };
};
const queuedFrame: Queued = { topic: 'stream-up', bytes: 32 * KiB, lane: 'bulk' };
const queuedApply: Queued = { topic: 'down', bytes: 900 * KiB, lane: 'bulk', key: 'uid-1' };

describe('which lane, and whether it may be written now', () => {
  const cases: Array<[string, string, number, PublishOrder, LaneState, string]> = [
    ['control on an idle client', 'up', 100, { lane: 'control' }, idle, 'write'],
    ['control behind a full socket and a queue', 'up', 100, { lane: 'control' }, waiting([queuedFrame], { unsentBytes: 1e6, inFlightBulkBytes: 1e6 }), 'write'],
    ['a large control message is still control', 'up', 900 * KiB, { lane: 'control' }, { ...idle, unsentBytes: 1e6 }, 'write'],
    ['bulk on an idle client', 'stream-up', 32 * KiB, { lane: 'bulk' }, idle, 'write'],
    ['bulk while the socket holds 16 KiB', 'stream-up', 32 * KiB, { lane: 'bulk' }, { ...idle, unsentBytes: 16 * KiB }, 'queue'],
    ['bulk while 64 KiB of bulk await their ack', 'stream-up', 32 * KiB, { lane: 'bulk' }, { ...idle, inFlightBulkBytes: 64 * KiB }, 'queue'],
    ['bulk behind queued bulk, though there is room', 'stream-up', 32 * KiB, { lane: 'bulk' }, waiting([queuedFrame]), 'queue'],
    ['bulk beyond the queue bound', 'stream-up', 32 * KiB, { lane: 'bulk' }, waiting([queuedFrame], { queuedBytes: limits.maxQueuedBytes }), 'refuse'],
    ['one message larger than the bound, alone', 'down', limits.maxQueuedBytes + 1, { lane: 'bulk' }, { ...idle, unsentBytes: 1e6 }, 'queue'],
    ['by size, small: control', 'down', 16 * KiB, {}, { ...idle, unsentBytes: 1e6 }, 'write'],
    ['by size, large: bulk', 'down', 16 * KiB + 1, {}, { ...idle, unsentBytes: 1e6 }, 'queue'],
    ['a tombstone behind the queued apply of its uid', 'down', 200, { lane: 'by-size', key: 'uid-1' }, waiting([queuedApply]), 'queue'],
    ['a message about another uid passes it', 'down', 200, { lane: 'by-size', key: 'uid-2' }, waiting([queuedApply]), 'write'],
    ['the same uid on another topic passes it', 'up', 200, { lane: 'by-size', key: 'uid-1' }, waiting([queuedApply]), 'write'],
    ['synced behind a queued apply of its topic', 'down', 200, { lane: 'control', fence: true }, waiting([queuedApply]), 'queue'],
    ['synced passes queued stream frames', 'down', 200, { lane: 'control', fence: true }, waiting([queuedFrame]), 'write'],
  ];
  it.each(cases)('%s', (_name, topic, bytes, order, state, expected) => {
    expect(decide(topic, bytes, order, state, limits)).toBe(expected);
  });
});

/** An in-memory socket whose reader is paused: what is written stays unsent until the test sends it, and acks come only when the test says. */
class PausedSocket {
  readonly wire: string[] = [];
  unsent = 0;
  private readonly unacked: Array<{ name: string; ack: () => void; fail: (e: Error) => void }> = [];
  maxUnsentSeen = 0;

  write(name: string, bytes: number): Promise<void> {
    this.wire.push(name);
    this.unsent += bytes;
    this.maxUnsentSeen = Math.max(this.maxUnsentSeen, this.unsent);
    return new Promise((ack, fail) => this.unacked.push({ name, ack, fail }));
  }

  /** The reader takes everything written so far and the broker acks it. */
  async deliverAll(): Promise<void> {
    this.unsent = 0;
    for (const u of this.unacked.splice(0)) u.ack();
    await Promise.resolve();
    await Promise.resolve();
  }

  dropConnection(): void {
    for (const u of this.unacked.splice(0)) u.fail(new Error('connection lost'));
  }
}

const frame = (i: number): Buffer => Buffer.alloc(32 * KiB, i % 256);
const named = new WeakMap<Buffer, string>();
const lanesOn = (socket: PausedSocket): PublishLanes =>
  new PublishLanes({ unsentBytes: () => socket.unsent, write: (_topic, payload) => socket.write(named.get(payload)!, payload.length) }, limits);
const publishFrames = (lanes: PublishLanes, count: number): Array<Promise<void>> =>
  Array.from({ length: count }, (_, i) => {
    const payload = frame(i);
    named.set(payload, `frame-${i}`);
    return lanes.publish('stream-up', payload, { lane: 'bulk' });
  });
const heartbeat = (lanes: PublishLanes): Promise<void> => {
  const payload = Buffer.from('{"type":"heartbeat"}');
  named.set(payload, 'heartbeat');
  return lanes.publish('up', payload, { lane: 'control' });
};

describe('PublishLanes on a socket whose reader is paused', () => {
  it('writes a heartbeat published after a megabyte of stream frames before them, and keeps the frames in order', async () => {
    const socket = new PausedSocket();
    const lanes = lanesOn(socket);
    const frames = publishFrames(lanes, 32); // 1 MiB
    const beat = heartbeat(lanes);
    // Only what the bound lets through went before it: one frame filled the socket's 16 KiB.
    expect(socket.wire).toEqual(['frame-0', 'heartbeat']);
    expect(lanes.waitingBytes).toBe(31 * 32 * KiB);
    while (socket.wire.length < 33) await socket.deliverAll();
    await socket.deliverAll();
    await expect(Promise.all([...frames, beat])).resolves.toBeDefined();
    expect(socket.wire.filter((n) => n !== 'heartbeat')).toEqual(Array.from({ length: 32 }, (_, i) => `frame-${i}`));
  });

  it('never lets bulk fill the socket past the bound, nor hold more than the in-flight bound unacked', async () => {
    const socket = new PausedSocket();
    const lanes = new PublishLanes({ unsentBytes: () => 0, write: (_t, p) => socket.write(named.get(p)!, p.length) }, limits);
    publishFrames(lanes, 32);
    // A socket that takes everything (the kernel's buffers): acks bound what is on its way.
    expect(socket.wire).toHaveLength(limits.maxInFlightBulkBytes / (32 * KiB));
    await socket.deliverAll();
    expect(socket.wire).toHaveLength(2 * (limits.maxInFlightBulkBytes / (32 * KiB)));
    const paused = new PausedSocket();
    const second = lanesOn(paused);
    publishFrames(second, 32);
    expect(paused.maxUnsentSeen).toBeLessThan(limits.maxUnsentBytes + 32 * KiB);
  });

  it('refuses bulk beyond its queue bound, and takes control all the same', async () => {
    const socket = new PausedSocket();
    const lanes = new PublishLanes({ unsentBytes: () => socket.unsent, write: (_t, p) => socket.write(named.get(p) ?? 'x', p.length) }, { ...limits, maxQueuedBytes: 4 * 32 * KiB });
    const frames = publishFrames(lanes, 6); // one written, four queued, the sixth refused
    await expect(frames[5]).rejects.toThrow(/bulk lane is full/);
    expect(lanes.waitingBytes).toBe(4 * 32 * KiB);
    void heartbeat(lanes);
    expect(socket.wire).toEqual(['frame-0', 'heartbeat']);
  });

  it('keeps a tombstone behind the large apply of its uid, and synced behind the difference it closes', async () => {
    const socket = new PausedSocket();
    const lanes = lanesOn(socket);
    const send = (name: string, bytes: number, order: PublishOrder): Promise<void> => {
      const payload = Buffer.alloc(bytes);
      named.set(payload, name);
      return lanes.publish('down', payload, order);
    };
    void send('apply-0', 900 * KiB, { key: 'u0' });
    void send('apply-1', 900 * KiB, { key: 'u1' });
    void send('delete-1', 200, { key: 'u1' });
    void send('ack', 100, { lane: 'control' });
    void send('synced', 100, { lane: 'control', fence: true });
    expect(socket.wire).toEqual(['apply-0', 'ack']);
    while (socket.wire.length < 5) await socket.deliverAll();
    expect(socket.wire).toEqual(['apply-0', 'ack', 'apply-1', 'delete-1', 'synced']);
    // Nothing waits any more: a small object of the same key goes at once.
    void send('delete-0', 200, { key: 'u0' });
    expect(socket.wire.at(-1)).toBe('delete-0');
  });

  it('loses nothing silently when the connection drops: every publish is acked or rejects, and the next session starts empty', async () => {
    const socket = new PausedSocket();
    const lanes = lanesOn(socket);
    const frames = publishFrames(lanes, 8);
    const beat = heartbeat(lanes);
    socket.dropConnection(); // what was written fails: the client lost it with its session
    lanes.close(new Error('not connected'));
    const settled = await Promise.allSettled([...frames, beat]);
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    await expect(heartbeat(lanes)).rejects.toThrow('not connected');
    const next = new PausedSocket();
    const again = lanesOn(next);
    const beat2 = heartbeat(again);
    await next.deliverAll();
    await expect(beat2).resolves.toBeUndefined();
  });
});
