import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

export interface ListenerOptions {
  host: string;
  port: number;
  /** Serve MQTT over TLS with this certificate. */
  tls?: { certPem: string; keyPem: string };
  /** Each client connection, decrypted. */
  onConnection: (socket: Socket) => void;
  /** A TLS handshake that failed: plain MQTT on the TLS port, or a client that does not trust our CA. */
  onHandshakeFailed: (error: Error, remoteAddress: string | undefined) => void;
}

export interface Listener {
  readonly port: number;
  /** Stops listening and destroys every connection still open. */
  close(): Promise<void>;
}

/** The broker's TCP (or TLS) listener, which knows its sockets so it can close them all. */
export async function listenForClients(options: ListenerOptions): Promise<Listener> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  let server: Server;
  if (options.tls) {
    const tls = createTlsServer({ cert: options.tls.certPem, key: options.tls.keyPem, handshakeTimeout: 10_000 }, options.onConnection);
    tls.on('connection', (socket: Socket) => {
      socket.setNoDelay(true); // without it QoS 1 round trips wait on Nagle's algorithm
      track(socket);
    });
    tls.on('tlsClientError', (err, socket) => options.onHandshakeFailed(err, socket.remoteAddress));
    server = tls;
  } else {
    server = createNetServer({ noDelay: true }, (socket) => {
      track(socket);
      options.onConnection(socket);
    });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
