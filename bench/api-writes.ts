import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { createApiServer } from '../cloud/apiserver/pipeline.js';
import { clusterResources } from '../cloud/apiserver/kinds/resources.js';
import { ensureSystemNamespaces } from '../cloud/apiserver/kinds/bootstrap.js';
import { NodeLeases } from '../cloud/hub/node-leases.js';
import { writePodStatus } from '../cloud/hub/upstream.js';
import { DurableStore } from '../cloud/store/durable-store.js';
import { FakeClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { defaultTiming } from '../shared/timing.js';
import type { KubeObject, Pod, PodStatus } from '../shared/types.js';

/*
 * CPU per API write, in process: an apiserver over the embedded durable store (temp dir) with
 * `pods` pods on `nodes` nodes; each round replaces every pod's status as the hub does
 * (writePodStatus through the node's loopback client) and renews every node's Lease
 * (NodeLeases). Prints CPU µs per write, GC pause µs per write (its share of that CPU) and
 * scavenges per 1,000 writes (young-generation collections: a measure of allocation), medians of the rounds.
 * Run: node dist/bench/api-writes.js [pods] [rounds]
 */

const NODES = 100;
const IN_FLIGHT = 64;

async function main(): Promise<void> {
  const pods = Number(process.argv[2] ?? 3000);
  const rounds = Number(process.argv[3] ?? 7);
  const dir = await mkdtemp(join(tmpdir(), 'kedge-api-writes-'));
  const store = await DurableStore.open(dir);
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const server = createApiServer({ store, clock, logger: silentLogger, tokens: [{ token: 't', user: 'cloud', role: 'admin' }], resources: clusterResources });
  const admin = server.loopback('t');
  await ensureSystemNamespaces(admin);
  const nodeUids = new Map<string, string>();
  for (let n = 0; n < NODES; n++) {
    const node = await admin.create<KubeObject>({ resource: 'nodes' }, { apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${n}`, labels: { 'kubernetes.io/hostname': `node-${n}` } } });
    nodeUids.set(node.metadata.name!, node.metadata.uid!);
  }
  const created: Pod[] = await inBatches(pods, (i) => admin.create<Pod>({ resource: 'pods', namespace: 'default' }, podOf(i)));
  const leases = new NodeLeases({ apiAsNode: (n) => server.loopbackAsNode(n), clock, timing: defaultTiming, nodeUid: (n) => nodeUids.get(n) });
  const podRows: number[][] = [];
  const leaseRows: number[][] = [];
  for (let r = 0; r < rounds; r++) {
    await clock.advance(60_000);
    podRows.push(await measure(pods, (i) => {
      const pod = created[i]!;
      const ref = { kind: 'Pod', namespace: 'default', name: pod.metadata.name!, uid: pod.metadata.uid!, resourceVersion: '' };
      return writePodStatus(server.loopbackAsNode(pod.spec.nodeName!), pod.spec.nodeName!, ref, statusOf(clock.now(), i));
    }));
    leaseRows.push(await measure(NODES, (n) => leases.heartbeat(`node-${n}`)));
  }
  report('pod status replace', podRows);
  report('node Lease update', leaseRows);
  await store.close();
  await rm(dir, { recursive: true, force: true });
}

function podOf(i: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'default', labels: { app: `app-${i % 20}`, tier: 'web' }, annotations: { 'example.com/note': 'x'.repeat(200) } },
    spec: {
      nodeName: `node-${i % NODES}`,
      containers: [{ name: 'main', image: 'registry.example/app:1.2.3', ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'bench' }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
    },
  } as Pod;
}

function statusOf(now: number, i: number): PodStatus {
  const at = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: at });
  return {
    phase: 'Running',
    hostIP: `10.0.${i % 250}.1`,
    podIP: `10.244.${i % 250}.${i % 200}`,
    startTime: at,
    conditions: [cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
    containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'registry.example/app:1.2.3', imageID: 'sha256:abc', containerID: `sim://${i}`, started: true, state: { running: { startedAt: at } } }],
  } as unknown as PodStatus;
}

async function inBatches<T>(count: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += IN_FLIGHT) {
    const batch = Array.from({ length: Math.min(IN_FLIGHT, count - i) }, (_, k) => one(i + k));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

/** [CPU µs per write, GC µs per write, scavenges per 1,000 writes]. */
async function measure(count: number, one: (i: number) => Promise<unknown>): Promise<number[]> {
  let gcMs = 0;
  let scavenges = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      if (((e as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const before = process.cpuUsage();
  await inBatches(count, one);
  const cpu = process.cpuUsage(before);
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve)); // let the observer report
  observer.disconnect();
  return [(cpu.user + cpu.system) / count, (gcMs * 1000) / count, (scavenges * 1000) / count];
}

function report(name: string, rows: number[][]): void {
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const cpu = median(rows.map((r) => r[0]!));
  const gc = median(rows.map((r) => r[1]!));
  const scavenges = median(rows.map((r) => r[2]!));
  console.log(`${name}: ${cpu.toFixed(0)} µs CPU/write, GC ${gc.toFixed(0)} µs/write (${((100 * gc) / cpu).toFixed(1)}%), ${scavenges.toFixed(1)} scavenges/1000 writes; CPU by round ${rows.map((r) => r[0]!.toFixed(0)).join(' ')}`);
}

void main();
