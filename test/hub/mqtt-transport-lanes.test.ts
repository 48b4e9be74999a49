import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import mqttPacket, { type IPublishPacket, type Packet } from 'mqtt-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EdgeHub } from '../../edge/hub/edge-hub.js';
import { reconnectDelay } from '../../shared/backoff.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { decodeUp } from '../../shared/protocol/codec.js';
import { topics } from '../../shared/protocol/topics.js';
import { defaultTiming } from '../../shared/timing.js';
import { mqttTransport } from '../support/mqtt-transports.js';
import { waitFor } from '../support/wait.js';

const FRAME = 32 * 1024;
const FRAMES = 32; // a megabyte of stream frames
const timing = { ...defaultTiming, reconnectMinMs: 100, reconnectMaxMs: 400 };

/**
 * A broker that speaks just enough MQTT 3.1.1 (CONNACK, SUBACK, PUBACK) and whose reader can
 * be paused, as a slow link's: what the edge writes then waits in its socket, and the order it
 * arrives in, once read, is the order it was written in.
 */
class PausableBroker {
  readonly published: IPublishPacket[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((socket) => this.accept(socket));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `mqtt://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  pause(): void {
    for (const s of this.sockets) s.pause();
  }

  resume(): void {
    for (const s of this.sockets) s.resume();
  }

  /** Cuts every connection, as a link that goes down. */
  drop(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** The payloads published on `topic`, in the order they arrived. */
  on(topic: string): Buffer[] {
    return this.published.filter((p) => p.topic === topic).map((p) => p.payload as Buffer);
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    parser.on('packet', (packet: Packet) => socket.writable && socket.write(mqttPacket.generate(this.answer(packet) ?? { cmd: 'pingresp' })));
    socket.on('data', (chunk: Buffer) => parser.parse(chunk));
  }

  private answer(packet: Packet): Packet | undefined {
    switch (packet.cmd) {
      case 'connect':
        return { cmd: 'connack', returnCode: 0, sessionPresent: false };
      case 'subscribe':
        return { cmd: 'suback', messageId: packet.messageId, granted: packet.subscriptions.map(() => 1) };
      case 'publish':
        this.published.push(packet);
        return { cmd: 'puback', messageId: packet.messageId! };
      default:
        return undefined;
    }
  }
}

describe('an edge whose link to the broker is full of stream frames', () => {
  let broker: PausableBroker;
  let hub: EdgeHub;
  let clock: FakeClock;

  beforeEach(async () => {
    broker = new PausableBroker();
    const url = await broker.listen();
    clock = new FakeClock();
    const transport = mqttTransport(url, { clientId: 'edge-1', username: 'edge-1', password: 'p' }, { clock, timing });
    hub = new EdgeHub({ nodeName: 'edge-1', transport, epoch: 'e1', bootId: 'b1', clock, logger: silentLogger, holds: () => [], accepts: [] });
    hub.start();
    await waitFor(() => hub.connectivity.connected, 'connected');
  });
  afterEach(async () => {
    await hub.stop();
    await broker.close();
  });

  const up = (): string[] => broker.on(topics.up('edge-1')).map((p) => (decodeUp(p) as { ok: true; message: { type: string } }).message.type);
  const frames = (): number[] => broker.on(topics.streamUp('edge-1')).map((p) => p[0]!);
  /** Where the heartbeat arrived among everything the edge published since its hello. */
  const heartbeatPlace = (): number => broker.published.filter((p) => p.topic !== topics.presence('edge-1')).findIndex((p) => p.topic === topics.up('edge-1') && p.payload.includes('heartbeat'));

  it('writes a heartbeat published after a megabyte of frames before them, and every frame in order', async () => {
    broker.pause();
    const sent = Array.from({ length: FRAMES }, (_, i) => hub.publishStreamFrame(Buffer.alloc(FRAME, i)));
    const beat = hub.send({ type: 'heartbeat' });
    broker.resume();
    await Promise.all([...sent, beat]);
    expect(up()).toEqual(['hello', 'heartbeat']);
    expect(frames()).toEqual(Array.from({ length: FRAMES }, (_, i) => i));
    // The hello, then at most the 64 KiB of bulk that may await their ack, then the heartbeat.
    expect(heartbeatPlace()).toBeLessThanOrEqual(1 + 2);
  });

  it('loses nothing silently when the link drops: what waited rejects, and the next session carries on', async () => {
    broker.pause();
    const sent = Array.from({ length: FRAMES }, (_, i) => hub.publishStreamFrame(Buffer.alloc(FRAME, i)));
    broker.drop();
    const settled = await Promise.allSettled(sent);
    await waitFor(() => !hub.connectivity.connected, 'disconnected');
    // Frames of a session that ended are not carried into the next one (its streams end: docs/protocol.md).
    // The broker read none of them: every one rejects, the one on the socket and those queued behind it.
    expect(settled.map((s) => s.status)).toEqual(Array(FRAMES).fill('rejected'));
    expect(frames()).toEqual([]);
    await clock.advance(reconnectDelay(0, timing.reconnectMinMs, timing.reconnectMaxMs, () => 0.5));
    await waitFor(() => hub.connectivity.connected, 'connected again');
    await hub.publishStreamFrame(Buffer.alloc(FRAME, 99));
    await hub.send({ type: 'heartbeat' });
    expect(up().filter((t) => t === 'hello')).toHaveLength(2);
    expect(frames().at(-1)).toBe(99);
  });
});
