import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

/*
 * The ends of bench/proxy.ts, each in a worker thread of its own (`role`): the endpoint (a
 * source that sends `bytes` on every connection, and an echo) and the client, so that the
 * endpoint, the client and the proxy (in the main thread) each have a core, as separate
 * processes would.
 */

export type PeerRequest = { type: 'download'; port: number } | { type: 'roundTrips'; port: number; rounds: number; size: number };
export type PeerAnswer = { type: 'ready'; sourcePort: number; echoPort: number } | { type: 'downloaded'; bytes: number; ms: number } | { type: 'rounds'; ms: number[] };

const { bytes, role } = workerData as { bytes: number; role: 'endpoint' | 'client' };
const chunk = Buffer.alloc(64 * 1024, 7);

function source(): Server {
  return createServer((socket) => {
    socket.on('error', () => undefined);
    let left = bytes;
    const more = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!socket.write(piece)) return void socket.once('drain', more);
      }
      socket.end();
    };
    more();
  });
}

const echo = (): Server => createServer((socket) => socket.on('error', () => undefined).pipe(socket));

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function download(port: number): Promise<PeerAnswer> {
  const began = performance.now();
  const socket = connect({ port, host: '127.0.0.1' });
  let got = 0;
  socket.on('data', (d: Buffer) => (got += d.length));
  await once(socket, 'close');
  return { type: 'downloaded', bytes: got, ms: performance.now() - began };
}

async function roundTrips(port: number, rounds: number, size: number): Promise<PeerAnswer> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.setNoDelay(true);
  await once(socket, 'connect');
  const request = Buffer.alloc(size, 1);
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    let got = 0;
    const answered = new Promise<void>((resolve) => {
      const onData = (d: Buffer): void => {
        got += d.length;
        if (got < size) return;
        socket.off('data', onData);
        resolve();
      };
      socket.on('data', onData);
    });
    socket.write(request);
    await answered;
    ms.push(performance.now() - began);
  }
  socket.destroy();
  return { type: 'rounds', ms };
}

const port = parentPort!;
if (role === 'endpoint') {
  const [sourcePort, echoPort] = await Promise.all([listen(source()), listen(echo())]);
  port.postMessage({ type: 'ready', sourcePort, echoPort } satisfies PeerAnswer);
} else {
  port.on('message', (req: PeerRequest) => {
    const answer = req.type === 'download' ? download(req.port) : roundTrips(req.port, req.rounds, req.size);
    void answer.then((a) => port.postMessage(a));
  });
}
