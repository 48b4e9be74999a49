import { realClock } from '../shared/clock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Aedes } from 'aedes';
import { sharedRedisState } from '../cloud/broker-member/shared-state.js';
import { silentLogger } from '../shared/log.js';
import { startRedis } from '../sim/broker-cluster/redis-server.js';
import { freePort } from '../sim/free-port.js';

/** A broker cluster under measurement: one MQTT URL per member, and a member's sudden death. */
export interface Contender {
  readonly name: string;
  readonly urls: string[];
  /** As kill -9: every socket of the member drops at once, nothing is said goodbye. */
  kill(member: number): Promise<void>;
  stop(): Promise<void>;
}

/** aedes members in this process sharing one redis-server (routing by mqemitter-redis, state by aedes-persistence-redis). */
export async function aedesOnRedis(members: number): Promise<Contender> {
  const redis = await startRedis();
  const stops: (() => Promise<void>)[] = [];
  const urls: string[] = [];
  for (let i = 0; i < members; i++) {
    const shared = sharedRedisState(redis.url, silentLogger);
    const broker = await Aedes.createBroker(shared.aedes);
    shared.attach(broker);
    const sockets = new Set<Socket>();
    const server = createServer({ noDelay: true }, (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      shared.onClient(broker.handle(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls.push(`mqtt://127.0.0.1:${(server.address() as { port: number }).port}`);
    let stopped: Promise<void> | undefined;
    stops.push(() => (stopped ??= (async () => {
      for (const socket of sockets) socket.resetAndDestroy();
      server.close();
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await shared.close();
    })()));
  }
  return {
    name: `aedes x${members} + redis-server`,
    urls,
    kill: (member) => stops[member]!(),
    stop: async () => {
      for (const stop of stops) await stop();
      await redis.stop();
    },
  };
}

/** nats-server processes (Debian's) in one cluster, each with MQTT and JetStream (MQTT needs it). */
export async function natsCluster(members: number): Promise<Contender> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-nats-'));
  const routes = await Promise.all(Array.from({ length: members }, () => freePort()));
  const children: ChildProcess[] = [];
  const urls: string[] = [];
  try {
    for (let i = 0; i < members; i++) {
      const mqtt = await freePort();
      const conf = join(dir, `n${i}.conf`);
      await writeFile(conf, [
        `server_name: n${i}`,
        'listen: 127.0.0.1:-1',
        `jetstream { store_dir: "${join(dir, `js${i}`)}" }`,
        `cluster { name: kedge, listen: 127.0.0.1:${routes[i]}, routes: [${routes.map((p) => `nats://127.0.0.1:${p}`).join(', ')}] }`,
        `mqtt { listen: 127.0.0.1:${mqtt} }`,
      ].join('\n'));
      const child = spawn('/usr/sbin/nats-server', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      urls.push(`mqtt://127.0.0.1:${mqtt}`);
    }
    await Promise.all(children.map((child) => lineMatching(child, /Server is ready/)));
    // MQTT needs JetStream's metadata leader, elected after the routes are up.
    await Promise.any(children.map((child) => lineMatching(child, /metadata leader/)));
  } catch (err) {
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    name: `nats-server x${members} (MQTT, JetStream)`,
    urls,
    kill: async (member) => {
      const child = children[member]!;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
    stop: async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await once(child, 'exit');
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function lineMatching(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const cancel = realClock.setTimer(20_000, () => reject(new Error(`nats-server not ready:\n${seen}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        cancel();
        resolve();
      }
    });
  });
}
