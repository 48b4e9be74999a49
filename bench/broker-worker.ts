import { createServer, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { Aedes } from 'aedes';
import { brokerAccess } from '../cloud/broker-access.js';
import { startBroker } from '../cloud/hub/broker.js';
import { silentLogger } from '../shared/log.js';

/*
 * One broker of the broker benchmark, in its own process so that its CPU time is its own:
 * kedge's embedded broker as the cloud serves it (credentials, topic ACLs, the guard layer;
 * the default per-node rate limit, or none), or plain aedes as its README starts it.
 * Prints `port <n>` once listening; stops when stdin closes.
 * Usage: node broker-worker.js kedge|kedge-unlimited|aedes <hub password> <edge token>
 */
export type WorkerBroker = 'kedge' | 'kedge-unlimited' | 'aedes';

async function startKedge(unlimited: boolean, hub: string, edge: string): Promise<{ port: number; close(): Promise<void> }> {
  return startBroker({
    port: 0,
    // The cloud's own check: the hub's password, or the shared edge token from this machine; no joined nodes.
    authenticate: brokerAccess({ hub, edge }, { verify: async () => false }),
    logger: silentLogger,
    nodesWaitForCloud: true,
    ...(unlimited ? { limits: { publishesPerSecond: 1e9, publishBurst: 1e9 } } : {}),
  });
}

async function startAedes(): Promise<{ port: number; close(): Promise<void> }> {
  const broker = await Aedes.createBroker();
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function main(): Promise<void> {
  const [kind, hub = '', edge = ''] = process.argv.slice(2) as [WorkerBroker, string?, string?];
  const broker = kind === 'aedes' ? await startAedes() : await startKedge(kind === 'kedge-unlimited', hub, edge);
  process.stdout.write(`port ${broker.port}\n`);
  for await (const line of createInterface({ input: process.stdin })) void line;
  await broker.close();
}

await main();
