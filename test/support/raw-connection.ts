import { connect as connectPlain, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

/** A raw connection that records what it receives and when it closes. */
export interface RawConnection {
  socket: Socket;
  text(): string;
  closed(): boolean;
  close(): void;
}

/** Connects to 127.0.0.1:`port`, over TLS with `ca`; `reading: false` leaves what comes unread (a client that stops reading). */
export async function rawConnect(port: number, o: { ca?: string; reading?: boolean } = {}): Promise<RawConnection> {
  const socket = o.ca ? connectTls({ host: '127.0.0.1', port, ca: o.ca, servername: 'localhost' }) : connectPlain({ host: '127.0.0.1', port });
  let received = '';
  let closed = false;
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once(o.ca ? 'secureConnect' : 'connect', resolve);
    socket.once('error', reject);
  });
  if (o.reading === false) socket.pause();
  else socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  return { socket, text: () => received, closed: () => closed, close: () => socket.destroy() };
}
