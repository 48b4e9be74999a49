import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { freePort } from '../free-port.js';
import { readLayout, writeLayout, type EtcdLayout } from './etcd-layout.js';
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
  /**
   * Keep the cluster here (a demo's `<data-dir>/etcd`): each member's data in `<dir>/<name>`,
   * its ports and token in `<dir>/cluster.json`; a later start with the same dir starts that
   * cluster again on the same ports (its size must match), and close leaves the data. None: a
   * temp dir, removed on close.
   */
  dir?: string;
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
  /** As start, without waiting: `ready` resolves once it serves, rejects if it exits first. */
  launch(index: number): { ready: Promise<void> };
  /** Kills every member and removes every data dir (a kept cluster's stay). */
  close(): Promise<void>;
}

const ATTEMPTS = 4;

/** Starts `size` members on free loopback ports and waits until all serve. Another process may take a port meanwhile: then it tries again with others. */
export async function startEtcdCluster(options: EtcdClusterOptions): Promise<EtcdCluster> {
  requireEtcd();
  const size = options.size ?? 1;
  if (options.dir !== undefined) {
    await mkdir(options.dir, { recursive: true });
    const kept = await readLayout(options.dir);
    if (kept) return startKept(kept, size, options.dir, options);
  }
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'kedge-etcd-')));
  const token = `kedge-${randomUUID().slice(0, 8)}`;
  for (let attempt = 1; ; attempt++) {
    const dataDirOf = (name: string): string => join(dir, options.dir === undefined ? `${name}.${attempt}` : name);
    const specs = await memberSpecs(size, dataDirOf, options.tls);
    const cluster = new LocalEtcdCluster(specs, token, options.dir === undefined ? dir : undefined, options);
    try {
      await cluster.startAll();
      if (options.dir !== undefined) await writeLayout(dir, { token, members: specs.map(({ name, clientPort, peerPort }) => ({ name, clientPort, peerPort })) });
      return cluster;
    } catch (err) {
      await cluster.killAll();
      await Promise.all(specs.map((s) => rm(s.dataDir, { recursive: true, force: true })));
      if (!/address already in use/i.test((err as Error).message) || attempt >= ATTEMPTS) {
        if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

/** The cluster kept in `dir`, started again on its own ports. */
async function startKept(layout: EtcdLayout, size: number, dir: string, options: EtcdClusterOptions): Promise<EtcdCluster> {
  if (layout.members.length !== size) {
    throw new Error(`${dir} holds a ${layout.members.length}-member etcd cluster, not ${size}: start it with that size, or remove ${dir} for a new one`);
  }
  const specs = layout.members.map((m) => ({ ...m, dataDir: join(dir, m.name), tls: options.tls }));
  const cluster = new LocalEtcdCluster(specs, layout.token, undefined, options);
  try {
    await cluster.startAll();
    return cluster;
  } catch (err) {
    await cluster.killAll();
    const taken = /address already in use/i.test((err as Error).message) ? ` (its ports are kept in ${dir}/cluster.json: another process holds one)` : '';
    throw new Error(`the etcd cluster kept in ${dir} did not start${taken}: ${(err as Error).message}`, { cause: err });
  }
}

async function memberSpecs(size: number, dataDirOf: (name: string) => string, tls?: EtcdServerTls): Promise<MemberSpec[]> {
  const specs: MemberSpec[] = [];
  for (let i = 0; i < size; i++) {
    const name = `etcd-${i}`;
    specs.push({ name, clientPort: await freePort(), peerPort: await freePort(), dataDir: dataDirOf(name), tls });
  }
  return specs;
}

class LocalEtcdCluster implements EtcdCluster {
  private readonly processes: (MemberProcess | undefined)[];

  constructor(
    readonly members: readonly MemberSpec[],
    private readonly token: string,
    /** Removed on close (a temp dir); undefined for a kept cluster. */
    private readonly tempDir: string | undefined,
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

  launch(index: number): { ready: Promise<void> } {
    if (this.isRunning(index)) throw new Error(`etcd member ${this.members[index]!.name} is running`);
    const spec = this.members[index]!;
    const member = spawnMember(spec.name, memberArgs(spec, this.members, this.token), this.options.clock, this.options.onLine);
    this.processes[index] = member;
    return { ready: member.ready };
  }

  async start(index: number): Promise<void> {
    const { ready } = this.launch(index);
    const member = this.processes[index]!;
    const timeoutMs = this.options.readyTimeoutMs ?? 20_000;
    let cancel = (): void => {};
    const late = new Promise<never>((_, reject) => {
      cancel = this.options.clock.setTimer(timeoutMs, () => reject(new Error(`etcd member ${this.members[index]!.name} did not serve clients within ${timeoutMs} ms:\n${member.log()}`)));
    });
    try {
      await Promise.race([ready, late]);
    } finally {
      cancel();
    }
  }

  async startAll(): Promise<void> {
    await Promise.all(this.members.map((_, i) => this.start(i)));
  }

  async killAll(): Promise<void> {
    await Promise.all(this.processes.map((p) => p?.kill()));
  }

  async close(): Promise<void> {
    await this.killAll();
    if (this.tempDir !== undefined) await rm(this.tempDir, { recursive: true, force: true });
  }
}
