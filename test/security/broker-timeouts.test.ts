import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCa, generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { DEFAULT_LIMITS, REFUSED, startBroker, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { connectPacket } from '../fuzz/payloads.js';
import { waitFor } from '../support/wait.js';

const ca = generateCa({ commonName: 'test-ca', now: realClock.now() });
const serving = generateServingCert({ commonName: 'broker', hosts: ['127.0.0.1'], now: realClock.now(), issuer: ca });

/**
 * The MQTT listener's timeouts, plain and TLS: a connection that never sends a whole CONNECT
 * is closed after the connect timeout (on the broker's Clock), and a client that asks for no
 * keepalive, or an absurd one, is refused at CONNECT: nothing stays silent for ever.
 */
describe.each([
  ['plain', undefined],
  ['TLS', serving],
] as const)('broker listener timeouts (%s)', (_name, tls) => {
  let broker: BrokerHandle;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  let clock: FakeClock;
  const clients: MqttClient[] = [];
  const sockets: Socket[] = [];

  const start = async (): Promise<void> => {
    counters = new Counters();
    log = memoryLogger('broker');
    clock = new FakeClock();
    broker = await startBroker({ port: 0, authenticate: (u, p) => u === 'edge-1' && p === 'one', logger: log, counters, clock, ...(tls ? { tls } : {}) });
  };
  /** A connection past the TLS handshake (if any) that sends `bytes`, then nothing. */
  const silent = async (bytes: Buffer = Buffer.alloc(0)): Promise<Socket> => {
    const socket = tls
      ? tlsConnect({ port: broker.port, host: '127.0.0.1', ca: ca.certPem, checkServerIdentity: () => undefined })
      : tcpConnect(broker.port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    socket.resume();
    await new Promise((r) => socket.once(tls ? 'secureConnect' : 'connect', r));
    if (bytes.length > 0) socket.write(bytes);
    return socket;
  };
  const isClosed = (s: Socket): boolean => s.closed || s.destroyed;
  const connect = async (keepalive: number): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { clientId: 'edge-1', username: 'edge-1', password: 'one', keepalive, protocolVersion: 4, reconnectPeriod: 0, ...(tls ? { ca: ca.certPem } : {}) });
    clients.push(c);
    return c;
  };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    for (const s of sockets.splice(0)) s.destroy();
    await broker.close();
  });

  it('closes a connection that sends nothing, or half a CONNECT, after the connect timeout', async () => {
    await start();
    const nothing = await silent();
    const half = connectPacket('edge-1', 'edge-1', 'one');
    const slow = await silent(half.subarray(0, half.length - 3));
    const admitted = await silent(half);
    await waitFor(() => admitted.bytesRead >= 4, 'CONNACK for the whole CONNECT');
    await clock.advance(DEFAULT_LIMITS.connectTimeoutMs - 1);
    expect([nothing, slow].some(isClosed)).toBe(false);
    await clock.advance(1);
    await waitFor(() => isClosed(nothing) && isClosed(slow), 'both closed at the connect timeout');
    expect(counters.get(REFUSED, { reason: 'connect-timeout' })).toBe(2);
    expect(log.lines.some((l) => l.includes('broker refused a client: no CONNECT within 10 s'))).toBe(true);
    expect(isClosed(admitted)).toBe(false);
  });

  it('refuses a client asking for no keepalive, or one longer than the bound, with CONNACK 2', async () => {
    await start();
    await expect(connect(0)).rejects.toThrow(/Identifier rejected/);
    await expect(connect(DEFAULT_LIMITS.maxKeepaliveSeconds + 1)).rejects.toThrow(/Identifier rejected/);
    expect(counters.get(REFUSED, { reason: 'keepalive' })).toBe(2);
    expect(log.lines.some((l) => l.includes('broker refused a client: keepalive 0 s is not from 1 to 600 s'))).toBe(true);
    const fine = await connect(DEFAULT_LIMITS.maxKeepaliveSeconds);
    expect(fine.connected).toBe(true);
  });
});
