import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { freePort } from '../free-port.js';
import { startRole, type RoleProcess } from '../role-process.js';

export interface CloudSetOptions {
  /** How many `kedge cloud` processes (cloud-1 … cloud-N). */
  count: number;
  /** The etcd every cloud keeps its objects in (one cluster: one prefix). */
  etcdEndpoints: readonly string[];
  /** Each cloud's data dir is `<dir>/cloud-<i>`. */
  dir: string;
  timeScale: number;
  clock: Clock;
  /** More flags for every cloud (e.g. --cluster-cidr). */
  args?: readonly string[];
  onLine?: (line: string) => void;
}

/** One cloud of the set: its ports and data dir stay the same across restarts, as its edges expect. */
export interface CloudMember {
  readonly name: string;
  readonly dataDir: string;
  readonly apiUrl: string;
  readonly brokerUrl: string;
}

/** Several `kedge cloud` processes on one etcd, each of which can be killed and started again. */
export interface CloudSet {
  readonly members: readonly CloudMember[];
  /** Every cloud's broker, comma-separated: what an edge is given. */
  readonly brokerUrls: string;
  isRunning(index: number): boolean;
  /** The cloud's current process (its last one once it exited). */
  process(index: number): RoleProcess | undefined;
  /** kill -9: a crash. Resolves once it is gone. */
  kill(index: number): Promise<void>;
  /** SIGTERM: the cloud releases its Leases and stops. */
  stop(index: number): Promise<void>;
  /** Starts a stopped or killed cloud again on its ports and data dir; resolves once it is ready. */
  start(index: number): Promise<void>;
  /** Stops every cloud (their data dirs stay: they are the caller's). */
  close(): Promise<void>;
}

/** Starts `count` clouds on free loopback ports, the first alone (it makes the cluster's identity), then the others at once. */
export async function startCloudSet(o: CloudSetOptions): Promise<CloudSet> {
  const members: CloudMember[] = [];
  for (let i = 1; i <= o.count; i++) {
    const dataDir = join(o.dir, `cloud-${i}`);
    await mkdir(dataDir, { recursive: true });
    members.push({ name: `cloud-${i}`, dataDir, apiUrl: `http://127.0.0.1:${await freePort()}`, brokerUrl: `mqtt://127.0.0.1:${await freePort()}` });
  }
  const set = new ProcessCloudSet(members, o);
  try {
    await set.start(0);
    await Promise.all(members.slice(1).map((_, i) => set.start(i + 1)));
    return set;
  } catch (err) {
    await set.close();
    throw err;
  }
}

/** The flags of one cloud of the set. */
export function cloudArgs(member: CloudMember, o: Pick<CloudSetOptions, 'etcdEndpoints' | 'timeScale' | 'args'>): string[] {
  return [
    'cloud',
    '--data-dir', member.dataDir,
    '--node-name', member.name,
    '--api-port', new URL(member.apiUrl).port,
    '--mqtt-port', new URL(member.brokerUrl).port,
    '--store', 'etcd',
    '--etcd-endpoints', o.etcdEndpoints.join(','),
    '--time-scale', String(o.timeScale),
    ...(o.args ?? []),
  ];
}

class ProcessCloudSet implements CloudSet {
  private readonly processes: (RoleProcess | undefined)[];

  constructor(
    readonly members: readonly CloudMember[],
    private readonly options: CloudSetOptions,
  ) {
    this.processes = members.map(() => undefined);
  }

  get brokerUrls(): string {
    return this.members.map((m) => m.brokerUrl).join(',');
  }

  isRunning(index: number): boolean {
    const child = this.processes[index]?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  process(index: number): RoleProcess | undefined {
    return this.processes[index];
  }

  async kill(index: number): Promise<void> {
    await this.processes[index]?.kill();
  }

  async stop(index: number): Promise<void> {
    await this.processes[index]?.stop();
  }

  async start(index: number): Promise<void> {
    const member = this.members[index]!;
    if (this.isRunning(index)) throw new Error(`${member.name} is running`);
    const role = startRole({
      name: member.name,
      args: cloudArgs(member, this.options),
      readyPattern: /^kedge cloud ready /,
      clock: this.options.clock,
      onLine: this.options.onLine,
    });
    this.processes[index] = role;
    await role.ready;
  }

  async close(): Promise<void> {
    await Promise.all(this.processes.map((p) => p?.stop()));
  }
}
