import { connect as tcpConnect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { connectAsync, type MqttClient } from 'mqtt';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCa, generateServingCert } from '../../cloud/apiserver/auth/tls-cert.js';
import { DENIED, REFUSED, startBroker, THROTTLED, type BrokerHandle, type BrokerOptions } from '../../cloud/hub/broker.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { clientIdOf } from '../support/mqtt-edge.js';
import { waitFor } from '../support/wait.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };
const ca = generateCa({ commonName: 'test-ca', now: realClock.now() });
const serving = generateServingCert({ commonName: 'broker', hosts: ['127.0.0.1'], now: realClock.now(), issuer: ca });

/**
 * Each bad input the broker meets is refused with a log line and a counter, and the other
 * clients go on as before: a cloud subscriber and edge-2 are checked after every one.
 */
describe('embedded broker: bad input', () => {
  let broker: BrokerHandle;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  let clock: FakeClock;
  const revoked = new Subject<string>();
  const clients: MqttClient[] = [];
  const sockets: Socket[] = [];

  async function start(extra: Partial<BrokerOptions> = {}): Promise<void> {
    counters = new Counters();
    log = memoryLogger('broker');
    clock = new FakeClock();
    broker = await startBroker({
      port: 0, authenticate: (u, p) => passwords[u] !== undefined && passwords[u] === p, logger: log, counters, clock, revoked$: revoked, ...extra,
    });
  }
  const connect = async (username: string, password = passwords[username] ?? '', options: Record<string, unknown> = {}): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { username, password, protocolVersion: 4, reconnectPeriod: 0, clientId: clientIdOf(username, clients.length), ...options });
    clients.push(c);
    return c;
  };
  /** A cloud subscriber and edge-2 talking: what every test checks still works after the bad input. */
  async function bystanders(options: Record<string, unknown> = {}): Promise<() => Promise<void>> {
    const cloud = await connect('kedge-cloud', undefined, options);
    const edge2 = await connect('edge-2', undefined, options);
    const heard: string[] = [];
    cloud.on('message', (_t, p) => heard.push(p.toString()));
    await cloud.subscribeAsync(topics.allUp, { qos: 1 });
    return async () => {
      const word = `still here ${heard.length}`;
      await edge2.publishAsync(topics.up('edge-2'), word, { qos: 1 });
      await waitFor(() => heard.includes(word), 'edge-2 heard by the cloud');
      expect(edge2.connected && cloud.connected).toBe(true);
    };
  }
  const raw = async (bytes: Buffer): Promise<Socket> => {
    const socket = tcpConnect(broker.port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    socket.write(bytes);
    return socket;
  };
  const closed = (socket: Socket): Promise<void> => new Promise((r) => (socket.closed ? r() : socket.once('close', () => r())));

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    for (const s of sockets.splice(0)) s.destroy();
    await broker.close();
  });

  it('a wrong password', async () => {
    await start();
    const check = await bystanders();
    await expect(connect('edge-1', 'wrong')).rejects.toThrow(/Bad username or password/);
    expect(counters.get(REFUSED, { reason: 'bad-credentials' })).toBe(1);
    expect(log.lines.some((l) => l.includes('broker refused a client: bad user name or password') && l.includes('"username":"edge-1"'))).toBe(true);
    await check();
  });

  it("node A publishing to node B's topic", async () => {
    await start();
    const check = await bystanders();
    const cloud = clients[0]!;
    const heard: string[] = [];
    cloud.on('message', (t, p) => heard.push(`${t} ${p}`));
    const a = await connect('edge-1');
    await a.publishAsync(topics.up('edge-2'), 'forged', { qos: 0 });
    await waitFor(() => counters.get(DENIED, { action: 'publish' }) === 1, 'the publish denied');
    expect(log.lines.some((l) => l.includes('broker denied a publish') && l.includes('kedge/v1/edge-2/up'))).toBe(true);
    await check();
    expect(heard.filter((h) => h.includes('forged'))).toEqual([]);
  });

  it('subscribing to #', async () => {
    await start();
    const check = await bystanders();
    const a = await connect('edge-1');
    await expect(a.subscribeAsync('#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
    expect(counters.get(DENIED, { action: 'subscribe' })).toBe(1);
    expect(log.lines.some((l) => l.includes('broker denied a subscription') && l.includes('"topic":"#"'))).toBe(true);
    await check();
  });

  it('an oversized packet, refused from its header before the body is buffered', async () => {
    await start({ limits: { maxPacketBytes: 1024, publishesPerSecond: 1000, publishBurst: 1000 } });
    const check = await bystanders();
    const a = await connect('edge-1');
    const gone = new Promise<void>((r) => a.once('close', () => r()));
    a.publish(topics.up('edge-1'), Buffer.alloc(4096), { qos: 0 });
    await gone;
    expect(counters.get(REFUSED, { reason: 'oversized-packet' })).toBe(1);
    expect(log.lines.some((l) => l.includes('bytes (limit 1024)'))).toBe(true);
    await check();
  });

  it('garbage bytes on the MQTT port', async () => {
    await start();
    const check = await bystanders();
    const socket = await raw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await closed(socket);
    const noise = await raw(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f]));
    await closed(noise);
    await waitFor(() => counters.total(REFUSED) === 2, 'both refused');
    expect(counters.get(REFUSED, { reason: 'protocol-error' }) + counters.get(REFUSED, { reason: 'not-mqtt' })).toBe(2);
    expect(log.lines.filter((l) => l.includes('broker refused a client')).length).toBe(2);
    await check();
  });

  it('a client over its message rate is slowed down, and loses nothing', async () => {
    await start({ limits: { maxPacketBytes: 1 << 20, publishesPerSecond: 10, publishBurst: 5 } });
    const check = await bystanders();
    const heard: string[] = [];
    clients[0]!.on('message', (t, p) => t === topics.up('edge-1') && heard.push(p.toString()));
    const a = await connect('edge-1');
    for (let i = 0; i < 30; i++) a.publish(topics.up('edge-1'), `m${i}`, { qos: 0 });
    // The burst passes; the PUBLISH after it waits, and so does everything behind it.
    await waitFor(() => counters.get(THROTTLED) === 1 && heard.length === 5, 'throttled after the burst');
    expect(log.lines.some((l) => l.includes('over its message rate'))).toBe(true);
    await clock.advance(100); // one more PUBLISH's worth at 10/s
    await waitFor(() => heard.length === 6, 'one more after 100 ms');
    expect(counters.get(THROTTLED)).toBe(1); // one episode, one report
    await clock.advance(5000);
    await waitFor(() => heard.length === 30, 'every message, late', 5000);
    expect(heard).toEqual(Array.from({ length: 30 }, (_, i) => `m${i}`));
    await check(); // the cloud (no rate limit) and edge-2 were never slowed
  });

  it('a revoked credential: the node is disconnected', async () => {
    await start();
    const check = await bystanders();
    const a = await connect('edge-1');
    const gone = new Promise<void>((r) => a.once('close', () => r()));
    revoked.next('edge-1');
    await gone;
    expect(counters.get(REFUSED, { reason: 'revoked' })).toBe(1);
    expect(log.lines.some((l) => l.includes('the credential of node edge-1 was revoked'))).toBe(true);
    await check();
  });

  describe('over TLS', () => {
    it('a client trusting another CA, and plain MQTT on the TLS port', async () => {
      await start({ tls: serving });
      expect(broker.url).toMatch(/^mqtts:/);
      const check = await bystanders({ ca: ca.certPem });
      const stranger = generateCa({ commonName: 'test-ca', now: realClock.now() });
      await expect(connect('edge-1', 'one', { ca: stranger.certPem })).rejects.toThrow(/certificate/);
      const plain = await raw(mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clientId: 'p', clean: true, keepalive: 10, username: 'edge-1', password: Buffer.from('one') }));
      await closed(plain);
      await waitFor(() => counters.get(REFUSED, { reason: 'tls-handshake' }) === 2, 'both handshakes refused');
      expect(log.lines.filter((l) => l.includes('"reason":"tls-handshake"')).length).toBe(1); // sampled: one line per interval
      await check();
    });
  });
});
