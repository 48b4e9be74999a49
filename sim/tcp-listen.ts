import { createServer, type Server, type Socket } from 'node:net';

/** A TCP server (Nagle off) listening on host:port (0: any free port); rejects if it cannot listen. */
export async function listenTcp(onConnection: (client: Socket) => void, port: number, host: string): Promise<Server> {
  const server = createServer({ noDelay: true }, onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
