import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CLOUD_USERNAME } from '../cloud/hub/acl.js';
import { mosquittoAclFile, mosquittoConf, mosquittoPasswordFile } from '../cloud/hub/mosquitto-config.js';
import { hashPassword } from '../cloud/hub/password-hash.js';
import { MOSQUITTO, startMosquitto } from '../sim/mosquitto.js';
import type { WorkerBroker } from './broker-worker.js';

/** The passwords every contender takes: the hub's, and the shared edge token every bench node uses. */
export const BENCH_SECRETS = { hub: 'bench-hub-secret', edge: 'bench-edge-token' };

/** A broker under measurement, in a process of its own. */
export interface RunningBroker {
  readonly url: string;
  /** Whose CPU time is the broker's. */
  readonly pid: number;
  stop(): Promise<void>;
}

export interface BrokerContender {
  readonly name: string;
  start(nodes: readonly string[]): Promise<RunningBroker>;
}

/** kedge's broker or plain aedes in bench/broker-worker.ts; `cpuProfileDir` runs it under node --cpu-prof. */
export function workerContender(name: string, kind: WorkerBroker, cpuProfileDir?: string): BrokerContender {
  return {
    name,
    start: async () => {
      const script = fileURLToPath(new URL('./broker-worker.js', import.meta.url));
      const flags = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
      const child = spawn(process.execPath, [...flags, script, kind, BENCH_SECRETS.hub, BENCH_SECRETS.edge], { stdio: ['pipe', 'pipe', 'inherit'] });
      const exited = once(child, 'exit');
      const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
      const port = /^port (\d+)$/.exec(String(first.value))?.[1];
      if (!port) {
        child.kill('SIGKILL');
        throw new Error(`the ${name} worker did not start: ${String(first.value)}`);
      }
      return {
        url: `mqtt://127.0.0.1:${port}`,
        pid: child.pid!,
        stop: async () => {
          child.stdin.end();
          await exited;
        },
      };
    },
  };
}

/**
 * Debian's Mosquitto as kedge configures it (kedge broker-config mosquitto: passwords, the
 * topic ACL), in a temp dir removed when it stops. Undefined when it is not installed.
 */
export function mosquittoContender(): BrokerContender | undefined {
  if (!MOSQUITTO) return undefined;
  return {
    name: 'Mosquitto',
    start: async (nodes) => {
      const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-mosquitto-'));
      try {
        const passwordFile = join(dir, 'passwd');
        const aclFile = join(dir, 'acl');
        const users = [{ username: CLOUD_USERNAME, passwordHash: hashPassword(BENCH_SECRETS.hub) }, ...nodes.map((username) => ({ username, passwordHash: hashPassword(BENCH_SECRETS.edge) }))];
        await writeFile(passwordFile, mosquittoPasswordFile(users), { mode: 0o600 });
        await writeFile(aclFile, mosquittoAclFile(), { mode: 0o600 });
        const broker = await startMosquitto(async (port) => {
          const conf = join(dir, 'mosquitto.conf');
          // As root, Mosquitto would switch to the mosquitto user, who cannot read a private temp dir.
          await writeFile(conf, mosquittoConf({ port, passwordFile, aclFile }) + (process.getuid?.() === 0 ? 'user root\n' : ''));
          return conf;
        });
        return {
          url: broker.url,
          pid: broker.pid,
          stop: async () => {
            await broker.stop();
            await rm(dir, { recursive: true, force: true });
          },
        };
      } catch (err) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    },
  };
}
