import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A socket whose every byte and event is recorded, for tests that watch what reaches an end. */
export interface Watched {
  socket: Socket;
  received(): string;
  events: string[];
  /** Error codes seen ('ECONNRESET', ...). */
  errors: string[];
}

export function watch(socket: Socket): Watched {
  const chunks: Buffer[] = [];
  const events: string[] = [];
  const errors: string[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('end', () => events.push('end'));
  socket.on('close', () => events.push('close'));
  socket.on('error', (err: NodeJS.ErrnoException) => {
    events.push('error');
    errors.push(err.code ?? err.message);
  });
  return { socket, received: () => Buffer.concat(chunks).toString(), events, errors };
}

/** A TCP server on 127.0.0.1:0 that keeps (and watches) every connection it accepts. */
export interface FarEnd {
  port: number;
  accepted: Watched[];
  close(): Promise<void>;
}

export async function startFarEnd(): Promise<FarEnd> {
  const accepted: Watched[] = [];
  const server: Server = createServer((socket) => accepted.push(watch(socket)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    accepted,
    close: async () => {
      for (const w of accepted) w.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Connects to 127.0.0.1:port and resolves once connected. */
export async function dial(port: number): Promise<Watched> {
  const socket = connect({ host: '127.0.0.1', port });
  const watched = watch(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return watched;
}
