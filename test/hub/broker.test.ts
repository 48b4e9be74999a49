import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBroker, type BrokerHandle } from '../../cloud/hub/broker.js';
import { wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { clientIdOf } from '../support/mqtt-edge.js';
import { waitFor } from '../support/wait.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };

describe('embedded broker', () => {
  let broker: BrokerHandle;
  const clients: MqttClient[] = [];
  const connect = async (username: string, password = passwords[username] ?? ''): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { username, password, protocolVersion: 4, reconnectPeriod: 0, clientId: clientIdOf(username, clients.length) });
    clients.push(c);
    return c;
  };
  const collect = (c: MqttClient): string[] => {
    const got: string[] = [];
    c.on('message', (topic, payload) => got.push(`${topic} ${payload.toString()}`));
    return got;
  };

  beforeEach(async () => {
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] !== undefined && passwords[u] === p, logger: silentLogger });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await broker.close();
  });

  it('listens on a free port on loopback', () => {
    expect(broker.port).toBeGreaterThan(0);
    expect(broker.url).toBe(`mqtt://127.0.0.1:${broker.port}`);
  });

  it('rejects a bad password and an unknown user', async () => {
    await expect(connect('edge-1', 'wrong')).rejects.toThrow();
    await expect(connect('stranger', 'x')).rejects.toThrow();
  });

  it('lets a node use its own topics and the cloud everything', async () => {
    const cloud = await connect('kedge-cloud');
    const edge = await connect('edge-1');
    const atCloud = collect(cloud);
    const atEdge = collect(edge);
    await cloud.subscribeAsync([topics.allUp, topics.allPresence], { qos: 1 });
    await edge.subscribeAsync(topics.down('edge-1'), { qos: 1 });
    await edge.publishAsync(topics.up('edge-1'), 'hi', { qos: 1 });
    await edge.publishAsync(topics.presence('edge-1'), 'on', { qos: 1 });
    await cloud.publishAsync(topics.down('edge-1'), 'yo', { qos: 1 });
    await waitFor(() => atCloud.length === 2 && atEdge.length === 1, 'deliveries');
    expect(atCloud).toEqual(['kedge/v1/edge-1/up hi', 'kedge/v1/edge-1/presence on']);
    expect(atEdge).toEqual(['kedge/v1/edge-1/down yo']);
  });

  it("refuses a node's subscription to another node's down topic or to wildcards", async () => {
    const cloud = await connect('kedge-cloud');
    const edge = await connect('edge-1');
    const atEdge = collect(edge);
    for (const topic of [topics.down('edge-2'), 'kedge/v1/+/down', topics.up('edge-2')]) {
      await expect(edge.subscribeAsync(topic, { qos: 1 })).rejects.toThrow(/Subscribe error/); // SUBACK 0x80
    }
    await cloud.publishAsync(topics.down('edge-2'), 'secret', { qos: 1 });
    await cloud.publishAsync(topics.up('edge-2'), 'secret', { qos: 1 });
    await wallDelay(50);
    expect(atEdge).toEqual([]);
    expect(edge.connected).toBe(true);
  });

  it("drops a node that publishes to another node's up topic, and delivers nothing", async () => {
    const cloud = await connect('kedge-cloud');
    const atCloud = collect(cloud);
    await cloud.subscribeAsync('kedge/v1/#', { qos: 1 });
    const edge = await connect('edge-1');
    const closed = new Promise<void>((resolve) => edge.once('close', () => resolve()));
    edge.publish(topics.up('edge-2'), 'forged', { qos: 0 });
    await closed;
    const again = await connect('edge-1');
    again.publish(topics.down('edge-1'), 'forged-down', { qos: 0 });
    await waitFor(() => !again.connected, 'edge dropped');
    await wallDelay(50);
    expect(atCloud).toEqual([]);
  });

  it('close() disconnects every client and stops listening', async () => {
    const edge = await connect('edge-1');
    const closed = new Promise<void>((resolve) => edge.once('close', () => resolve()));
    await broker.close();
    await closed;
    await expect(connect('edge-1')).rejects.toThrow();
    await broker.close(); // idempotent
  });

  it('closes when its signal aborts', async () => {
    const controller = new AbortController();
    const other = await startBroker({ port: 0, authenticate: () => true, logger: silentLogger, signal: controller.signal });
    const c = await connectAsync(other.url, { clientId: 'edge-9', username: 'edge-9', password: 'x', protocolVersion: 4, reconnectPeriod: 0 });
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    controller.abort();
    await closed;
    await c.endAsync(true);
  });
});
