import { EventEmitter } from 'node:events';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import mqttPacket from 'mqtt-packet';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCa, generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { DEFAULT_LIMITS, REFUSED, startBroker, type BrokerHandle } from '../../cloud/hub/broker.js';
import { GuardedConnection } from '../../cloud/hub/connection-guard.js';
import { RateBudgets } from '../../cloud/hub/rate-budgets.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { waitFor } from '../support/wait.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };
const ca = generateCa({ commonName: 'test-ca', now: realClock.now() });
const serving = generateServingCert({ commonName: 'broker', hosts: ['127.0.0.1'], now: realClock.now(), issuer: ca });
/** Small for the test; the kernel's socket buffers (several MiB on loopback) fill first. */
const QUEUE_BYTES = 256 * 1024;
const BIG = Buffer.alloc(100 * 1024, 'x');
const ROUNDS = 300; // 30 MB for edge-1: more than its socket buffers and its queue hold

/**
 * A subscriber that stops reading is cut off, not waited for. aedes delivers a message to
 * every subscriber before it reads the publisher's next packet: one node that never reads
 * its down topic would stall the hub's connection, and so every other node. Here edge-1 is
 * a raw client that subscribes and then never reads while the hub sends it 30 MB; edge-2
 * receives every message meant for it, edge-1 is disconnected and counted as slow-client.
 */
describe.each([
  ['plain', undefined],
  ['TLS', serving],
] as const)('a subscriber that stops reading (%s)', (_name, tls) => {
  let broker: BrokerHandle;
  const clients: MqttClient[] = [];
  const sockets: Socket[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    for (const s of sockets.splice(0)) s.destroy();
    await broker.close();
  });

  const connect = async (clientId: string, username: string): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { clientId, username, password: passwords[username], protocolVersion: 4, reconnectPeriod: 0, ...(tls ? { ca: ca.certPem } : {}) });
    clients.push(c);
    return c;
  };
  /** edge-1 as a raw client: CONNECT, SUBSCRIBE to its down topic, wait for CONNACK and SUBACK, then never read again. */
  const nonReader = async (): Promise<Socket> => {
    const socket = tls ? tlsConnect({ port: broker.port, host: '127.0.0.1', ca: ca.certPem, checkServerIdentity: () => undefined }) : tcpConnect(broker.port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    await new Promise((r) => socket.once(tls ? 'secureConnect' : 'connect', r));
    let answered = 0;
    socket.on('data', (chunk: Buffer) => (answered += chunk.length));
    socket.write(mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: 'edge-1', clean: true, keepalive: 60, username: 'edge-1', password: Buffer.from('one') }));
    socket.write(mqttPacket.generate({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: topics.down('edge-1'), qos: 1 }] }));
    await waitFor(() => answered >= 4 + 5, 'CONNACK and SUBACK');
    socket.removeAllListeners('data');
    socket.pause();
    return socket;
  };

  it('is cut off and counted; the hub and edge-2 carry on', async () => {
    const counters = new Counters();
    const log = memoryLogger('broker');
    broker = await startBroker({
      port: 0, authenticate: (u, p) => passwords[u] === p, logger: log, counters, clock: new FakeClock(), nodesWaitForCloud: true,
      limits: { maxQueuedBytes: QUEUE_BYTES }, ...(tls ? { tls } : {}),
    });
    const hub = await connect('kedge-cloud-t', 'kedge-cloud');
    await hub.subscribeAsync(topics.allUp, { qos: 1 });
    const edge2 = await connect('edge-2', 'edge-2');
    const atEdge2: string[] = [];
    edge2.on('message', (_t, p) => atEdge2.push(p.toString()));
    await edge2.subscribeAsync(topics.down('edge-2'), { qos: 1 });
    await nonReader();

    for (let i = 0; i < ROUNDS; i++) {
      hub.publish(topics.down('edge-1'), BIG, { qos: 1 });
      hub.publish(topics.down('edge-2'), `m${i}`, { qos: 1 });
    }
    await waitFor(() => atEdge2.length === ROUNDS, 'edge-2 gets every message while edge-1 never reads', 20_000);
    expect(atEdge2).toEqual(Array.from({ length: ROUNDS }, (_, i) => `m${i}`));
    await waitFor(() => counters.get(REFUSED, { reason: 'slow-client' }) === 1, 'edge-1 cut off');
    expect(counters.get(REFUSED, { reason: 'slow-client' })).toBe(1);
    expect(log.lines.some((l) => l.includes('broker refused a client') && l.includes(`bytes queued for a client that does not read (limit ${QUEUE_BYTES})`))).toBe(true);

    // The hub's own session went on: edge-2 is heard, and the hub is still the one connection it was.
    const heard: string[] = [];
    hub.on('message', (_t, p) => heard.push(p.toString()));
    await edge2.publishAsync(topics.up('edge-2'), 'still here', { qos: 1 });
    await waitFor(() => heard.includes('still here'), 'the hub hears edge-2');
    expect(hub.connected && edge2.connected).toBe(true);
  });
});

/** A socket whose peer never reads: every byte written stays queued (nothing real is sent or held). */
class UnreadSocket extends EventEmitter {
  readonly remoteAddress = '127.0.0.1';
  writableLength = 0;
  destroyed = false;
  write(chunk: Buffer): boolean {
    this.writableLength += chunk.length;
    return false;
  }
  pause(): void {}
  resume(): void {}
  cork(): void {}
  uncork(): void {}
  end(done?: () => void): void {
    done?.();
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/**
 * The hub shares its event loop with the embedded broker: while the loop is busy with the
 * nodes (one poll round reading 64 KB from each of 1,000 of them is 64 MB for the hub), what
 * waits for the hub is no sign that it stopped reading, and cutting it off would drop every
 * node. So the hub has no queue bound; a node keeps its own.
 */
describe('what waits for a client that does not read, by role', () => {
  const MiB = Buffer.alloc(1024 * 1024);
  const connection = () => {
    const clock = new FakeClock();
    const socket = new UnreadSocket();
    const refused: string[] = [];
    const budgets = new RateBudgets(DEFAULT_LIMITS.publishesPerSecond, DEFAULT_LIMITS.publishBurst, clock);
    const conn = new GuardedConnection(socket as unknown as Socket, DEFAULT_LIMITS, clock, { refused: (reason) => refused.push(reason), throttled: () => {} }, budgets);
    return { conn, socket, refused, budgets };
  };
  /** Writes `mib` MiB, or until the connection is cut off; says how many went. */
  const send = async (conn: GuardedConnection, mib: number): Promise<number> => {
    let sent = 0;
    while (sent < mib && !conn.destroyed) {
      await new Promise<void>((resolve) => conn.write(MiB, () => resolve()));
      sent++;
    }
    return sent;
  };

  it('cuts a node off past 16 MiB', async () => {
    const { conn, socket, refused, budgets } = connection();
    conn.admitWith(budgets.acquire('node/edge-1'));
    expect(await send(conn, 64)).toBe(17);
    expect([refused, socket.destroyed]).toEqual([['slow-client'], true]);
  });

  it('never cuts the hub off, however far behind the loop leaves it', async () => {
    const { conn, socket, refused } = connection();
    conn.admitAsCloud();
    expect(await send(conn, 256)).toBe(256);
    expect([refused, socket.destroyed, socket.writableLength]).toEqual([[], false, 256 * MiB.length]);
    conn.destroy();
  });
});
