import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A backend on 127.0.0.2:0 (127.0.0.1 is the machine's own, which kube-proxy refuses as an endpoint) that says its name on every connection, then echoes; its sockets are kept for the test to watch. */
export interface Backend {
  name: string;
  endpoint: string;
  sockets: Socket[];
  close(): Promise<void>;
}

export async function backend(name: string, host = '127.0.0.2'): Promise<Backend> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.write(name);
    socket.pipe(socket);
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    name,
    endpoint: `${host}:${port}`,
    sockets,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connects, and resolves with the connected socket. */
export async function dialPort(port: number, host = '127.0.0.1'): Promise<Socket> {
  const socket = connect({ host, port });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

/** The first bytes the socket receives, as text; '' when it closes without any. */
export function firstWords(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (data: Buffer) => resolve(data.toString()));
    socket.once('close', () => resolve(''));
  });
}

/** Who answers a new connection to `port` (the backend's name), the connection closed after. */
export async function whoAnswers(port: number, host = '127.0.0.1'): Promise<string> {
  const socket = await dialPort(port, host);
  const name = await firstWords(socket);
  socket.destroy();
  return name;
}

/** Resolves once the socket closed. */
export async function closed(socket: Socket): Promise<void> {
  if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
}
