import { connect, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { startTestBroker, type TestBroker } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

/** Real MQTT through the proxy: a pulled cable is found out by keepalive on both ends (real time). */
describe('link proxy with MQTT', () => {
  let broker: TestBroker;
  let proxy: LinkProxy;
  let client: MqttClient | undefined;

  beforeEach(async () => {
    broker = await startTestBroker();
    proxy = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: broker.port }, clock: realClock, logger: silentLogger });
  });
  afterEach(async () => {
    await client?.endAsync(true);
    await proxy.close();
    await broker.close();
  });

  it('cut: both ends time out on keepalive; heal: the client reconnects', async () => {
    const seen: string[] = [];
    broker.broker.on('keepaliveTimeout', (c) => seen.push(`broker keepaliveTimeout ${c.id}`));
    broker.broker.on('clientDisconnect', (c) => seen.push(`broker clientDisconnect ${c.id}`));
    client = connect(`mqtt://127.0.0.1:${proxy.port}`, {
      clientId: 'edge-1',
      protocolVersion: 4,
      keepalive: 1,
      reconnectPeriod: 200,
      connectTimeout: 500,
    });
    let connects = 0;
    client.on('connect', () => connects++);
    client.on('offline', () => seen.push('client offline'));
    client.on('close', () => seen.push('client close'));
    client.on('error', () => {});
    await waitFor(() => connects === 1, 'the first connect');

    const cutAt = performance.now();
    proxy.cut();
    await waitFor(() => seen.includes('client close') || undefined, 'the client to give up on keepalive', 5000);
    await waitFor(() => seen.includes('broker keepaliveTimeout edge-1') || undefined, 'the broker to give up on keepalive', 5000);
    await waitFor(() => seen.includes('broker clientDisconnect edge-1') || undefined, 'the broker to drop the client', 5000);
    expect(seen).toContain('client offline');
    expect(performance.now() - cutAt).toBeGreaterThan(900); // found out by keepalive, not by a FIN
    expect(connects).toBe(1);

    proxy.heal();
    await waitFor(() => connects === 2, 'the client to reconnect', 5000);
    expect(client.connected).toBe(true);
    expect(proxy.state()).toMatchObject({ state: 'up', connections: 1 });
  });
});
