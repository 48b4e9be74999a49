import type { AddressInfo, Socket } from 'node:net';
import { listenTcp } from './tcp-listen.js';

/**
 * The cloud side's bulk sink: a TCP server that reads and discards whatever it is sent, and
 * counts it. Each demo edge's link proxy forwards its sink listener here, so a pod on the edge
 * can push bulk data over its node's link (docs/operations.md, "A link's sink").
 */
export interface LinkSink {
  readonly host: string;
  readonly port: number;
  /** Bytes received so far, over every connection. */
  readonly bytes: number;
  close(): Promise<void>;
}

export async function startLinkSink(host = '127.0.0.1'): Promise<LinkSink> {
  const sockets = new Set<Socket>();
  let bytes = 0;
  const server = await listenTcp((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  }, 0, host);
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    get bytes() {
      return bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
