import type { Client } from 'aedes';
import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { brokerUrls } from '../../shared/broker-urls.js';
import type { MqttTransport } from '../../shared/mqtt-transport.js';
import { defaultTiming } from '../../shared/timing.js';
import { freePort } from '../support/free-port.js';
import { mqttTransport } from '../support/mqtt-transports.js';
import { startTestBroker, type TestBroker } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

const timing = { ...defaultTiming, reconnectMinMs: 20, reconnectMaxMs: 50 };
/** Closes every client connection of `b` (aedes keeps them in a map its types leave out). */
function dropClients(b: TestBroker): void {
  for (const client of Object.values((b.broker as unknown as { clients: Record<string, Client> }).clients)) client.close();
}

const identity = { clientId: 'edge-1', username: 'edge-1', password: 'x' };

describe('MqttTransport with a list of brokers', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });
  const broker = async (): Promise<TestBroker> => {
    const b = await startTestBroker();
    open.push(b);
    return b;
  };
  const transport = (brokerUrl: string): MqttTransport => {
    const t = mqttTransport(brokerUrl, identity, { clock: realClock, timing });
    open.push(t);
    t.start({ subscriptions: ['kedge/v1/edge-1/down'] });
    return t;
  };
  const connectedTo = (b: TestBroker) => () => b.broker.connectedClients === 1;

  it('connects to the first broker of the list that answers', async () => {
    const [a, b] = [await broker(), await broker()];
    const t = transport(`mqtt://127.0.0.1:${await freePort()}, ${a.url},${b.url}`);
    await waitFor(() => t.connectivity.connected, 'connected');
    expect(t.broker).toBe(a.url);
    expect(a.broker.connectedClients).toBe(1);
    expect(b.broker.connectedClients).toBe(0);
  });

  it('moves to the next broker on each reconnect, and round to the first again', async () => {
    const [a, b] = [await broker(), await broker()];
    const t = transport(`${a.url},${b.url}`);
    await waitFor(connectedTo(a), 'on the first broker');
    dropClients(a);
    await waitFor(connectedTo(b), 'on the second broker');
    expect(t.broker).toBe(b.url);
    dropClients(b);
    await waitFor(connectedTo(a), 'on the first broker again');
  });

  it('with one broker, reconnects to it as before', async () => {
    const a = await broker();
    const t = transport(a.url);
    await waitFor(connectedTo(a), 'connected');
    dropClients(a);
    await waitFor(() => !t.connectivity.connected, 'disconnected');
    await waitFor(connectedTo(a), 'connected again');
  });
});

describe('brokerUrls (--broker URL[,URL…])', () => {
  it('keeps the order and drops blanks', () => {
    expect(brokerUrls('mqtt://a:1, mqtts://b:8883,')).toEqual(['mqtt://a:1', 'mqtts://b:8883']);
  });
  it('names what is not an MQTT URL', () => {
    expect(() => brokerUrls('mqtt://a:1,http://b')).toThrow('"http://b" is not an mqtt:// or mqtts:// URL');
    expect(() => brokerUrls('a:1:2')).toThrow(/is not/);
    expect(() => brokerUrls(' , ')).toThrow('no broker URL given');
  });
});
