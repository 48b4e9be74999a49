import { createApiServer, ensureSystemNamespaces } from '../cloud/apiserver/index.js';
import type { ApiClient } from '../cloud/client/client.js';
import { startScheduler } from '../cloud/scheduler/index.js';
import { MemoryStore } from '../cloud/store/memory-store.js';
import { realClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import type { Node, Pod } from '../shared/types.js';
import { median, round } from './stats.js';

/*
 * Scheduler throughput alone, in one process: an apiserver over a MemoryStore holding
 * `nodes` Ready nodes (4 cpu, 8Gi, 110 pods) and `pods` pending pods with small requests;
 * then the scheduler starts and the wall time until its last binding is acknowledged is
 * measured (its first list of nodes and pods included). No edges, no sockets: the figure is
 * the scheduler's own cost plus the apiserver calls it makes. Median of `runs` runs. The
 * process's CPU time over the same span is reported too: on a shared, busy machine it says
 * more about the cost than the wall time does.
 */

export interface SchedulerBenchOptions {
  nodes: number;
  pods: number;
  runs?: number;
  log: (line: string) => void;
}

export interface SchedulerBenchReport {
  nodes: number;
  pods: number;
  /** Median over runs. */
  podsBoundPerSecond: number;
  runsPodsBoundPerSecond: number[];
  /** Pods bound per second of this process's CPU time (user + system, all threads), median over runs. */
  podsBoundPerCpuSecond: number;
}

const TOKEN = 'bench-admin';

const benchNode = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  spec: {},
  status: {
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
});

const pendingPod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'kedge.io/bench:1', resources: { requests: { cpu: '50m', memory: '64Mi' } } }] },
});

/** Runs `make(i)` for i < count with `inFlight` calls open at once. */
export async function createAll(count: number, inFlight: number, make: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await make(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** The scheduler's client, counting acknowledged bindings and resolving once there are `want`. */
function countingBindings(api: ApiClient, want: number): { api: ApiClient; allBound: Promise<number> } {
  let bound = 0;
  let done!: (at: number) => void;
  const allBound = new Promise<number>((resolve) => (done = resolve));
  const create: ApiClient['create'] = async (ref, body) => {
    const created = await api.create(ref, body);
    if (ref.subresource === 'binding' && ++bound === want) done(performance.now());
    return created;
  };
  return { api: { ...api, create } as ApiClient, allBound };
}

async function oneRun(o: SchedulerBenchOptions): Promise<{ perSecond: number; perCpuSecond: number }> {
  const api = createApiServer({ store: new MemoryStore(), clock: realClock, logger: silentLogger, tokens: [{ token: TOKEN, user: 'bench', role: 'admin' }] });
  const admin = api.loopback(TOKEN);
  await ensureSystemNamespaces(admin);
  await createAll(o.nodes, 32, (i) => admin.create({ resource: 'nodes' }, benchNode(`node-${i + 1}`)));
  await createAll(o.pods, 32, (i) => admin.create({ resource: 'pods', namespace: 'default' }, pendingPod(`pod-${i + 1}`)));
  const counting = countingBindings(admin, o.pods);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const scheduler = await startScheduler({ api: counting.api, clock: realClock, logger: silentLogger });
  let cancelTimeout: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => (cancelTimeout = realClock.setTimer(180_000, () => reject(new Error(`not all ${o.pods} pods bound in 180 s`)))));
  try {
    const end = await Promise.race([counting.allBound, timeout]);
    const { user, system } = process.cpuUsage(cpu);
    return { perSecond: o.pods / ((end - start) / 1000), perCpuSecond: o.pods / ((user + system) / 1e6) };
  } finally {
    cancelTimeout?.();
    await scheduler.close();
  }
}

export async function runSchedulerBench(o: SchedulerBenchOptions): Promise<SchedulerBenchReport> {
  const runs: number[] = [];
  const perCpu: number[] = [];
  for (let i = 0; i < (o.runs ?? 3); i++) {
    const { perSecond, perCpuSecond } = await oneRun(o);
    o.log(`scheduler run ${i + 1}: ${o.pods} pods on ${o.nodes} nodes at ${round(perSecond)} pods bound/s (${round(perCpuSecond)} per CPU second)`);
    runs.push(round(perSecond));
    perCpu.push(round(perCpuSecond));
  }
  return { nodes: o.nodes, pods: o.pods, podsBoundPerSecond: median(runs), runsPodsBoundPerSecond: runs, podsBoundPerCpuSecond: median(perCpu) };
}
