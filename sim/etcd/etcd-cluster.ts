import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { freePort } from '../free-port.js';
import { clientUrl, memberArgs, requireEtcd, spawnMember, type EtcdServerTls, type MemberProcess, type MemberSpec } from './etcd-member.js';

export interface EtcdClusterOptions {
  /** How many members (default 1). */
  size?: number;
  clock: Clock;
  /** Every line the members log, prefixed by the member's name. */
  onLine?: (line: string) => void;
  /** How long a start may take to serve clients (default 20 s). */
  readyTimeoutMs?: number;
  /** Clients must speak TLS with a certificate signed by `trustedCaFile`. */
  tls?: EtcdServerTls;
}

/** Real etcd members on loopback, each its own process and data dir, for tests, demos and scenarios. */
export interface EtcdCluster {
  /** Every member's client URL, in member order. */
  readonly endpoints: string[];
  readonly members: readonly MemberSpec[];
  isRunning(index: number): boolean;
  /** etcd's process id for the member (its last one once it exited). */
  pid(index: number): Promise<number | undefined>;
  /** SIGTERM: the member leaves cleanly (its data stays). */
  stop(index: number): Promise<void>;
  /** kill -9: a crash. */
  kill(index: number): Promise<void>;
  /** Starts a stopped or killed member again on its ports and data; resolves once it serves (which needs a quorum). */
  start(index: number): Promise<void>;
  /** Kills every member and removes every data dir. */
  close(): Promise<void>;
}

const ATTEMPTS = 4;

/** Starts `size` members on free loopback ports and waits until all serve. Another process may take a port meanwhile: then it tries again with others. */
export async function startEtcdCluster(options: EtcdClusterOptions): Promise<EtcdCluster> {
  requireEtcd();
  const dir = await mkdtemp(join(tmpdir(), 'kedge-etcd-'));
  for (let attempt = 1; ; attempt++) {
    const specs = await memberSpecs(options.size ?? 1, dir, attempt, options.tls);
    const cluster = new LocalEtcdCluster(specs, dir, options);
    try {
      await Promise.all(specs.map((_, i) => cluster.start(i)));
      return cluster;
    } catch (err) {
      await cluster.killAll();
      if (!/address already in use/i.test((err as Error).message) || attempt >= ATTEMPTS) {
        await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

async function memberSpecs(size: number, dir: string, attempt: number, tls?: EtcdServerTls): Promise<MemberSpec[]> {
  const specs: MemberSpec[] = [];
  for (let i = 0; i < size; i++) {
    const name = `etcd-${i}`;
    specs.push({ name, clientPort: await freePort(), peerPort: await freePort(), dataDir: join(dir, `${name}.${attempt}`), tls });
  }
  return specs;
}

class LocalEtcdCluster implements EtcdCluster {
  private readonly processes: (MemberProcess | undefined)[];
  private readonly token = `kedge-${randomUUID().slice(0, 8)}`;

  constructor(
    readonly members: readonly MemberSpec[],
    private readonly dir: string,
    private readonly options: EtcdClusterOptions,
  ) {
    this.processes = members.map(() => undefined);
  }

  get endpoints(): string[] {
    return this.members.map(clientUrl);
  }

  isRunning(index: number): boolean {
    const child = this.processes[index]?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  async pid(index: number): Promise<number | undefined> {
    return this.processes[index]?.pid;
  }

  async stop(index: number): Promise<void> {
    await this.processes[index]?.stop();
  }

  async kill(index: number): Promise<void> {
    await this.processes[index]?.kill();
  }

  async start(index: number): Promise<void> {
    if (this.isRunning(index)) throw new Error(`etcd member ${this.members[index]!.name} is running`);
    const spec = this.members[index]!;
    const member = spawnMember(spec.name, memberArgs(spec, this.members, this.token), this.options.clock, this.options.onLine);
    this.processes[index] = member;
    const timeoutMs = this.options.readyTimeoutMs ?? 20_000;
    let cancel = (): void => {};
    const late = new Promise<never>((_, reject) => {
      cancel = this.options.clock.setTimer(timeoutMs, () => reject(new Error(`etcd member ${spec.name} did not serve clients within ${timeoutMs} ms:\n${member.log()}`)));
    });
    try {
      await Promise.race([member.ready, late]);
    } finally {
      cancel();
    }
  }

  async killAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => p?.kill()));
  }

  async close(): Promise<void> {
    await this.killAll();
    await rm(this.dir, { recursive: true, force: true });
  }
}
