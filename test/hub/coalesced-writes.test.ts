import { Writable } from 'node:stream';
import type { Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { COALESCE_BYTES, CoalescedWrites } from '../../cloud/hub/coalesced-writes.js';
import { GuardedConnection } from '../../cloud/hub/connection-guard.js';
import { DEFAULT_LIMITS } from '../../cloud/hub/broker.js';
import { RateBudgets } from '../../cloud/hub/rate-budgets.js';
import { FakeClock } from '../../shared/clock.js';

/** A socket that records each system call it would make: one batch per _write or _writev. */
class RecordingSocket extends Writable {
  readonly batches: Buffer[] = [];
  /** Calls to write(): each is the socket stream's bookkeeping, and a system call unless corked. */
  writes = 0;
  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    this.writes++;
    return super.write(chunk, encoding as BufferEncoding, cb as () => void);
  }
  readonly remoteAddress = '127.0.0.1';
  override _write(chunk: Buffer, _e: BufferEncoding, done: () => void): void {
    this.batches.push(chunk);
    done();
  }
  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    this.batches.push(Buffer.concat(chunks.map((c) => c.chunk)));
    done();
  }
  pause(): void {}
  resume(): void {}
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('writes coalesced per turn of the event loop', () => {
  it('hands everything written in one turn to the socket at once, at the end of the turn', async () => {
    const socket = new RecordingSocket();
    const writes = new CoalescedWrites(socket);
    for (let i = 0; i < 10; i++) writes.write(Buffer.from(`p${i};`));
    expect(socket.batches).toEqual([]);
    await endOfTurn();
    expect(socket.batches.map(String)).toEqual(['p0;p1;p2;p3;p4;p5;p6;p7;p8;p9;']);
    writes.write(Buffer.from('next'));
    await endOfTurn();
    expect(socket.batches.map(String)).toEqual(['p0;p1;p2;p3;p4;p5;p6;p7;p8;p9;', 'next']);
  });

  it('joins strings (as UTF-8), short pieces and long ones in their order', async () => {
    const socket = new RecordingSocket();
    const writes = new CoalescedWrites(socket);
    const long = Buffer.alloc(300, 7);
    writes.write(Buffer.from([0x32]));
    writes.write('kedge/v1/nœud-é/up');
    writes.write(Buffer.from([0, 9]));
    writes.write(long);
    expect(writes.waitingBytes).toBe(1 + Buffer.byteLength('kedge/v1/nœud-é/up') + 2 + 300);
    await endOfTurn();
    expect(socket.batches).toEqual([Buffer.concat([Buffer.from([0x32]), Buffer.from('kedge/v1/nœud-é/up', 'utf8'), Buffer.from([0, 9]), long])]);
  });

  it('does not hold more than COALESCE_BYTES for the end of the turn', () => {
    const socket = new RecordingSocket();
    const writes = new CoalescedWrites(socket);
    writes.write(Buffer.alloc(10));
    writes.write(Buffer.alloc(COALESCE_BYTES));
    expect(socket.batches.map((b) => b.length)).toEqual([10 + COALESCE_BYTES]);
  });

  it('a guarded connection writes each PUBLISH (and a PUBACK after it) in one system call, not one per piece', async () => {
    const socket = new RecordingSocket();
    const clock = new FakeClock();
    const conn = new GuardedConnection(socket as unknown as Socket, DEFAULT_LIMITS, clock, { refused: () => {}, throttled: () => {} }, new RateBudgets(1, 1, clock));
    conn.admitAsCloud();
    const publish = { cmd: 'publish', topic: 'kedge/v1/edge-1/down', payload: Buffer.alloc(300), qos: 1, messageId: 7, dup: false, retain: false } as const;
    mqttPacket.writeToStream(publish, conn); // as aedes writes: header, topic, id and payload, corked
    mqttPacket.writeToStream({ cmd: 'puback', messageId: 8 }, conn);
    await endOfTurn();
    expect(socket.batches).toHaveLength(1);
    expect(socket.batches[0]).toEqual(Buffer.concat([mqttPacket.generate(publish), mqttPacket.generate({ cmd: 'puback', messageId: 8 })]));
    expect(socket.writes).toBe(1); // the pieces are one buffer by then, not nine writes to a corked socket
    conn.destroy();
  });

  it('counts what waits for the end of the turn against the bound of a client that does not read', () => {
    const socket = new RecordingSocket();
    const clock = new FakeClock();
    const refused: string[] = [];
    const conn = new GuardedConnection(socket as unknown as Socket, { ...DEFAULT_LIMITS, maxQueuedBytes: 1000 }, clock, { refused: (reason) => refused.push(reason), throttled: () => {} }, new RateBudgets(1, 1, clock));
    conn.write(Buffer.alloc(600));
    expect(refused).toEqual([]);
    conn.write(Buffer.alloc(600));
    expect(refused).toEqual(['slow-client']);
    expect(conn.destroyed).toBe(true);
  });

  it('a write after the connection is destroyed fails as on any stream, and nothing reaches the socket', async () => {
    const socket = new RecordingSocket();
    const clock = new FakeClock();
    const conn = new GuardedConnection(socket as unknown as Socket, DEFAULT_LIMITS, clock, { refused: () => {}, throttled: () => {} }, new RateBudgets(1, 1, clock));
    conn.on('error', () => {});
    conn.destroy();
    const failed = new Promise<Error | null | undefined>((resolve) => conn.write(Buffer.from('late'), resolve));
    expect((await failed)?.message).toMatch(/destroyed/);
    expect(socket.batches).toEqual([]);
  });

  it('what waits goes to the socket before the connection is destroyed in the same turn', () => {
    const socket = new RecordingSocket();
    const clock = new FakeClock();
    const conn = new GuardedConnection(socket as unknown as Socket, DEFAULT_LIMITS, clock, { refused: () => {}, throttled: () => {} }, new RateBudgets(1, 1, clock));
    mqttPacket.writeToStream({ cmd: 'connack', returnCode: 4, sessionPresent: false }, conn);
    conn.destroy();
    expect(socket.batches).toEqual([mqttPacket.generate({ cmd: 'connack', returnCode: 4, sessionPresent: false })]);
  });
});
