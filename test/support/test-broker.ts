import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type AedesOptions } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';

/** An in-process aedes broker on 127.0.0.1, port 0. `close()` drops every client and the listener. */
export interface TestBroker {
  url: string;
  port: number;
  broker: Aedes;
  close(): Promise<void>;
}

export async function startTestBroker(port = 0, options?: AedesOptions): Promise<TestBroker> {
  const broker = await Aedes.createBroker(options);
  const sockets = new Set<Socket>();
  const server: Server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `mqtt://127.0.0.1:${actual}`,
    port: actual,
    broker,
    close: () =>
      (closed ??= (async () => {
        await new Promise<void>((resolve) => broker.close(() => resolve()));
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}

/** A client of a test broker and the payloads it has received, in order. */
export interface ListeningClient {
  client: MqttClient;
  got: string[];
}

/**
 * A test broker with `options` and clients that keep what they receive: `start` in a test,
 * `close` after it (the clients end, then the broker). A client's message handler is on before
 * its CONNACK, so what a persistent session had queued, which may come right after it, is kept.
 */
export function brokerWithClients(): { start(options?: AedesOptions): Promise<TestBroker>; connect(clientId: string, clean?: boolean): Promise<ListeningClient>; close(): Promise<void> } {
  let broker: TestBroker | undefined;
  const clients: MqttClient[] = [];
  return {
    start: async (options) => (broker = await startTestBroker(0, options)),
    connect: async (clientId, clean = true) => {
      const client = mqtt.connect(broker!.url, { clientId, clean, protocolVersion: 4, reconnectPeriod: 0 });
      clients.push(client);
      const got: string[] = [];
      client.on('message', (_topic, payload) => got.push(payload.toString()));
      await new Promise<void>((resolve, reject) => client.once('connect', () => resolve()).once('error', reject));
      return { client, got };
    },
    close: async () => {
      await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
      await broker?.close();
    },
  };
}
