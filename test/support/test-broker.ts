import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type AedesOptions } from 'aedes';

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
