import { realClock } from '../../shared/clock.js';
import { readyField, startRole, type RoleProcess } from '../role-process.js';
import { startRedis, type RedisProcess } from './redis-server.js';

export interface BrokerMember {
  /** mqtt://127.0.0.1:<port> */
  readonly url: string;
  readonly process: RoleProcess;
}

export interface BrokerCluster {
  readonly redis: RedisProcess;
  readonly members: readonly BrokerMember[];
  /** Every member's URL, comma-separated: what `--broker` takes. */
  readonly urls: string;
  /** Stops every member still running and Redis, and removes Redis' temp dir. Idempotent. */
  stop(): Promise<void>;
}

export interface BrokerClusterOptions {
  members: number;
  /** A passwd file (kedge broker-config mosquitto). */
  passwordFile: string;
  onLine?: (line: string) => void;
}

/** A redis-server of its own and `members` `kedge broker` processes (from dist/) on free loopback ports. */
export async function startBrokerCluster(options: BrokerClusterOptions): Promise<BrokerCluster> {
  const redis = await startRedis();
  const processes: RoleProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await redis.stop();
    })());
  try {
    for (let i = 0; i < options.members; i++) {
      processes.push(startRole({
        name: `broker-${i + 1}`,
        args: ['broker', '--redis', redis.url, '--password-file', options.passwordFile, '--port', '0'],
        readyPattern: /^kedge broker ready /,
        clock: realClock,
        ...(options.onLine ? { onLine: options.onLine } : {}),
      }));
    }
    const lines = await Promise.all(processes.map((p) => p.ready));
    const members = lines.map((line, i) => ({ url: readyField(line, 'mqtt'), process: processes[i]! }));
    return { redis, members, urls: members.map((m) => m.url).join(','), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
