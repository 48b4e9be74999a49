import type { Client } from 'aedes';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconnectDelay } from '../../shared/backoff.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import type { MqttTransport } from '../../shared/mqtt-transport.js';
import { defaultTiming } from '../../shared/timing.js';
import type { SessionSpec, TransportMessage } from '../../shared/transport.js';
import { mqttTransport } from '../support/mqtt-transports.js';
import { startTestBroker, type TestBroker } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

const timing = { ...defaultTiming, reconnectMinMs: 100, reconnectMaxMs: 400 };
const firstRetryMs = reconnectDelay(0, timing.reconnectMinMs, timing.reconnectMaxMs, () => 0.5);
const node = { clientId: 'edge-1', username: 'edge-1', password: 'secret' };
const will = { topic: 'kedge/v1/edge-1/presence', payload: Buffer.from('offline') };
const spec: SessionSpec = { subscriptions: ['kedge/v1/edge-1/down'], will };

describe('MqttTransport over a real broker', () => {
  let broker: TestBroker;
  let clock: FakeClock;
  let log: ReturnType<typeof memoryLogger>;
  let transport: MqttTransport;
  /** The broker's side of each connection, by client id, and how many the transport made. */
  const clients = new Map<string, Client>();
  let sessions = 0;
  const observers: MqttClient[] = [];

  /** A plain client that watches `topic` (retained messages included). */
  const observe = async (topic: string): Promise<TransportMessage[]> => {
    const seen: TransportMessage[] = [];
    const c = await connectAsync(broker.url, { clientId: `observer-${observers.length}`, protocolVersion: 4, reconnectPeriod: 0 });
    observers.push(c);
    c.on('message', (t, payload, packet) => seen.push({ topic: t, payload, retained: packet.retain }));
    await c.subscribeAsync(topic, { qos: 1 });
    return seen;
  };
  const connected = (): Promise<boolean> => waitFor(() => transport.connectivity.connected, 'connected');

  beforeEach(async () => {
    broker = await startTestBroker();
    sessions = 0;
    broker.broker.on('client', (c) => {
      clients.set(c.id, c);
      if (c.id === node.clientId) sessions++;
    });
    clock = new FakeClock();
    log = memoryLogger('edge');
    transport = mqttTransport(broker.url, node, { clock, timing, logger: log });
  });
  afterEach(async () => {
    await transport.close();
    await Promise.all(observers.splice(0).map((c) => c.endAsync(true)));
    clients.clear();
    await broker.close();
  });

  it('subscribes and runs onSession before it counts as connected; inbound says what was retained', async () => {
    const cloud = await connectAsync(broker.url, { clientId: 'cloud', protocolVersion: 4, reconnectPeriod: 0 });
    observers.push(cloud);
    await cloud.publishAsync('kedge/v1/edge-1/down', 'kept', { qos: 1, retain: true });
    const presence = await observe(will.topic);
    const inbound: TransportMessage[] = [];
    transport.inbound$.subscribe((m) => inbound.push(m));
    const seenDuringSetup: boolean[] = [];
    transport.start({
      ...spec,
      onSession: async (session) => {
        seenDuringSetup.push(transport.connectivity.connected);
        await session.retain({ topic: will.topic, payload: Buffer.from('online') });
        await session.publish('kedge/v1/edge-1/up', Buffer.from('hello'));
      },
    });
    await connected();
    expect(seenDuringSetup).toEqual([false]);
    await waitFor(() => presence.some((m) => m.payload.toString() === 'online'), 'presence online');
    await cloud.publishAsync('kedge/v1/edge-1/down', 'live', { qos: 1 });
    await waitFor(() => inbound.length === 2, 'both down messages');
    expect(inbound.map((m) => [m.payload.toString(), m.retained])).toEqual([['kept', true], ['live', false]]);
    expect(transport.lastHeard).toBe(clock.now());
    await transport.publish('kedge/v1/edge-1/up', Buffer.from('status'));
  });

  it('rejects a publish without a session, and one still unacknowledged when the session drops', async () => {
    await expect(transport.publish('kedge/v1/edge-1/up', Buffer.from('early'))).rejects.toThrow('not connected');
    transport.start(spec);
    await connected();
    const held: (() => void)[] = [];
    broker.broker.authorizePublish = (_client, packet, done) => (packet.topic.endsWith('/up') ? held.push(() => done(null)) : done(null));
    const inFlight = transport.publish('kedge/v1/edge-1/up', Buffer.from('never acked'));
    await waitFor(() => held.length === 1, 'the publish at the broker');
    clients.get('edge-1')!.close(); // the broker drops the session: no PUBACK will come
    await expect(inFlight).rejects.toThrow();
    expect(transport.connectivity.connected).toBe(false);
  });

  it('leaves its will when the session drops, then reconnects on the clock and subscribes again', async () => {
    const presence = await observe(will.topic);
    const inbound: TransportMessage[] = [];
    transport.inbound$.subscribe((m) => inbound.push(m));
    transport.start(spec);
    await connected();
    clients.get('edge-1')!.close();
    await waitFor(() => presence.some((m) => m.payload.equals(will.payload)), 'the will');
    await waitFor(() => !transport.connectivity.connected, 'disconnected');
    expect(transport.connectivity.since).toBe(clock.now());

    await clock.advance(firstRetryMs - 1);
    expect(clock.pending).toBe(1); // not yet
    await clock.advance(1);
    await connected();
    expect(sessions).toBe(2);
    const cloud = await connectAsync(broker.url, { clientId: 'cloud', protocolVersion: 4, reconnectPeriod: 0 });
    observers.push(cloud);
    await cloud.publishAsync('kedge/v1/edge-1/down', 'after', { qos: 1 });
    await waitFor(() => inbound.some((m) => m.payload.toString() === 'after'), 'a message on the new session');
  });

  it('ends a session whose setup fails and tries again after the backoff', async () => {
    let attempts = 0;
    transport.start({
      ...spec,
      onSession: async () => {
        if (attempts++ === 0) throw new Error('presence refused');
      },
    });
    await waitFor(() => log.lines.some((l) => l.includes('session setup failed; reconnecting')), 'the failure logged');
    await waitFor(() => clock.pending === 1, 'the retry scheduled');
    expect(transport.connectivity.connected).toBe(false);
    await clock.advance(firstRetryMs);
    await connected();
    expect(attempts).toBe(2);
  });

  it('retries a refused credential slowly and says so once', async () => {
    let admit = false;
    let tries = 0;
    broker.broker.authenticate = (_client, _user, _password, done) => {
      tries++;
      done(admit ? null : Object.assign(new Error('bad user name or password'), { returnCode: 4 }), admit);
    };
    transport.start(spec);
    await waitFor(() => clock.pending === 1, 'the retry scheduled');
    const slowRetryMs = timing.reconnectMaxMs * 30;
    await clock.advance(slowRetryMs - 1);
    expect(tries).toBe(1);
    await clock.advance(1);
    await waitFor(() => tries === 2 && clock.pending === 1, 'the second refusal');
    expect(log.lines.filter((l) => l.includes("the broker refuses this client's credential"))).toHaveLength(1);
    admit = true;
    await clock.advance(slowRetryMs);
    await connected();
  });

  it('says farewell on close (or the broker says the will), completes its streams, and closes once', async () => {
    const presence = await observe(will.topic);
    let completed = 0;
    transport.connectivity$.subscribe({ complete: () => completed++ });
    transport.inbound$.subscribe({ complete: () => completed++ });
    transport.start(spec);
    await connected();
    const farewell = { topic: will.topic, payload: Buffer.from('goodbye') };
    await Promise.all([transport.close(farewell), transport.close(farewell)]);
    // The farewell goes at QoS 0 just before the socket is dropped; the broker may publish the will instead.
    await waitFor(() => presence.length > 0, 'presence offline');
    for (const m of presence) expect([farewell.payload.toString(), will.payload.toString()]).toContain(m.payload.toString());
    expect(completed).toBe(2);
    expect(clock.pending).toBe(0);
    await expect(transport.publish('kedge/v1/edge-1/up', Buffer.from('late'))).rejects.toThrow('not connected');
  });
});
