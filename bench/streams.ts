import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { readCredentials } from '../cloud/apiserver/auth/credentials.js';
import { realClock, wallDelay } from '../shared/clock.js';
import { isKedgeError } from '../shared/errors.js';
import type { Pod } from '../shared/types.js';
import { readyField, startRole, type RoleProcess } from '../sim/role-process.js';
import { PodTracker } from './pod-tracker.js';
import { benchPod, readyNodes, startScaleCluster, waitUntil } from './scale-cluster.js';
import { median, medianDifferenceP, percentile, round } from './stats.js';

/*
 * Streams over the sync link, through real processes: a `kedge cloud`, a `kedge fleet` of hollow
 * edges, and one real `kedge edge` running a process pod that serves bytes.
 * - exec: `exec … -- true` asked with a WebSocket client (v5.channel.k8s.io, as kubectl 1.32),
 *   kubectl's own start excluded: time to the first frame and to the exit status.
 * - port-forward: one download through `kubectl port-forward` against a direct connection to the
 *   pod's address (best of `runs`), and the ratio.
 * - busy: pod startup p99 across the fleet while ten port-forwards stream without pause, against
 *   the same without them (alternating rounds; medians of the rounds' p99, and an exact
 *   permutation test of their difference: p under 0.05 is beyond the machine's noise).
 */

export interface StreamsBenchOptions {
  nodes: number;
  execRuns: number;
  megabytes: number;
  runs: number;
  forwards: number;
  rounds: number;
  podsPerRound: number;
  podsPerSecond: number;
  log: (line: string) => void;
}

const NODE = 'stream-1';
const POD = 'byte-source';
const PORT = 18090;

/** A TCP server on the pod's address: a client sends "N\n" and gets N MB (0: without end), then the server closes. */
const SOURCE = `
const net = require('node:net');
const chunk = Buffer.alloc(64 * 1024, 120);
net.createServer((s) => {
  s.once('data', (d) => {
    let left = Number(String(d).trim()) * 1e6 || Infinity;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!s.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void s.once('drain', pump);
      }
      s.end();
    };
    pump();
  });
  s.on('error', () => {});
}).listen(Number(process.env.PORT), process.env.POD_IP, () => console.log('listening'));
`;

const sourcePod = (): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: POD },
  spec: {
    nodeName: NODE,
    runtimeClassName: 'process',
    containers: [{
      name: 'main',
      image: 'node',
      command: ['node', '-e', SOURCE],
      env: [{ name: 'PORT', value: String(PORT) }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
    }],
  },
} as Pod);

/** Reads `megabytes` from host:port (0: until `stop`); resolves with the bytes and the ms it took. */
async function download(host: string, port: number, megabytes: number, stop?: AbortSignal): Promise<{ bytes: number; ms: number }> {
  const socket = connect({ host, port });
  await once(socket, 'connect');
  const start = performance.now();
  socket.write(`${megabytes}\n`);
  let bytes = 0;
  socket.on('data', (d: Buffer) => void (bytes += d.length));
  stop?.addEventListener('abort', () => socket.destroy());
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { bytes, ms: performance.now() - start };
}

/** `exec … -- true` over the API's WebSocket: ms to the first frame and to the exit status. */
async function execOnce(apiUrl: string, token: string): Promise<{ firstMs: number; statusMs: number }> {
  const url = `${apiUrl.replace(/^https?:/, 'ws:')}/api/v1/namespaces/default/pods/${POD}/exec?command=true&container=main&stderr=true&stdout=true`;
  const start = performance.now();
  const ws = new WebSocket(url, ['v5.channel.k8s.io'], { headers: { authorization: `Bearer ${token}` } });
  let firstMs = 0;
  return new Promise((resolve, reject) => {
    ws.on('message', (data: Buffer) => {
      if (!firstMs) firstMs = performance.now() - start;
      if (data[0] === 3) {
        const statusMs = performance.now() - start;
        ws.close(1000);
        resolve({ firstMs, statusMs });
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => reject(new Error(`exec: HTTP ${res.statusCode} ${body}`)));
    });
    ws.on('error', reject);
  });
}

/** `kubectl port-forward pod/<POD> :<PORT>`: resolves with the local port once kubectl listens. */
async function portForward(kubeconfig: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn('kubectl', ['port-forward', `pod/${POD}`, `:${PORT}`], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const m = /^Forwarding from 127\.0\.0\.1:(\d+)/.exec(line);
    if (m) return { child, port: Number(m[1]) };
  }
  throw new Error('kubectl port-forward ended before it listened');
}

async function bestMBps(host: string, port: number, o: StreamsBenchOptions): Promise<number> {
  let best = 0;
  for (let i = 0; i < o.runs; i++) {
    const r = await download(host, port, o.megabytes);
    best = Math.max(best, r.bytes / 1e6 / (r.ms / 1000));
  }
  return round(best);
}

/** Creates `count` pods on the fleet at `perSecond`; resolves with the startup p99 once all run. */
async function startupRound(api: RoleCluster['api'], tracker: PodTracker, prefix: string, o: StreamsBenchOptions): Promise<number> {
  const pods = Array.from({ length: o.podsPerRound }, (_, i) => benchPod(`${prefix}-${i}`));
  const start = performance.now();
  await Promise.all(pods.map(async (pod, i) => {
    await wallDelay(Math.max(0, start + (i * 1000) / o.podsPerSecond - performance.now()));
    tracker.created(pod.metadata.name!);
    await api.create({ resource: 'pods', namespace: 'default' }, pod);
  }));
  const names = pods.map((p) => p.metadata.name!);
  await waitUntil(async () => names.every((n) => tracker.times.get(n)?.runningAt !== undefined), `${names.length} pods Running`, 180_000, 250);
  const startup = names.map((n) => tracker.times.get(n)!).map((t) => t.runningAt! - t.createdAt!);
  // Each round starts on the same fleet: its pods go, so that rounds do not pile pods up on the edges.
  await Promise.all(names.map((name) => api.delete({ resource: 'pods', namespace: 'default', name }, { gracePeriodSeconds: 0 }).catch(() => undefined)));
  return round(percentile(startup, 99));
}

/** A process pod outlives its edge (as a container its kubelet): deleted, and gone once the edge confirmed it. */
async function removeSource(api: RoleCluster['api']): Promise<void> {
  const ref = { resource: 'pods', namespace: 'default', name: POD };
  await api.delete(ref).catch(() => undefined);
  // Only NotFound means gone: any other error (the API busy) is asked again.
  await waitUntil(() => api.get(ref).then(() => false, (err: unknown) => isKedgeError(err, 'NotFound')), `${POD} stopped by its edge`, 30_000);
}

type RoleCluster = Awaited<ReturnType<typeof startScaleCluster>>;

async function startStreamEdge(dir: string, mqtt: string, token: string): Promise<RoleProcess> {
  const edge = startRole({
    name: 'edge',
    args: ['edge', '--node', NODE, '--broker', mqtt, '--token', token, '--data-dir', join(dir, NODE), '--local-api-port', '0'],
    readyPattern: /^kedge edge .* ready /,
    clock: realClock,
    onLine: (line) => void (/ERROR/.test(line) && process.stderr.write(line + '\n')),
  });
  await edge.ready;
  return edge;
}

export async function runStreamsBench(o: StreamsBenchOptions): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-streams-'));
  const c = await startScaleCluster(dir, o.nodes);
  const creds = (await readCredentials(join(dir, 'cloud')))!;
  const apiUrl = readyField(await c.cloud.ready, 'api');
  const kubeconfig = join(dir, 'cloud', 'kubeconfig');
  const edge = await startStreamEdge(dir, readyField(await c.cloud.ready, 'mqtt'), creds.edge);
  const tracker = new PodTracker(c.api);
  const forwards: ChildProcess[] = [];
  try {
    await waitUntil(async () => (await readyNodes(c.api)) === o.nodes + 1, `${o.nodes + 1} nodes Ready`, 180_000, 1000);
    await c.api.create({ resource: 'pods', namespace: 'default' }, sourcePod());
    let podIP = '';
    await waitUntil(async () => {
      const pod = await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: POD });
      podIP = pod.status?.podIP ?? '';
      return pod.status?.phase === 'Running' && podIP !== '' && (await download(podIP, PORT, 0.001).then(() => true, () => false));
    }, 'the byte source answering', 60_000);
    o.log(`streams: ${o.nodes} hollow nodes and ${NODE} Ready; ${POD} listens on ${podIP}:${PORT}`);

    const execs: { firstMs: number; statusMs: number }[] = [];
    for (let i = 0; i < o.execRuns; i++) execs.push(await execOnce(apiUrl, creds.admin));
    const exec = {
      firstFrameMs: { p50: round(median(execs.map((e) => e.firstMs))), p99: round(percentile(execs.map((e) => e.firstMs), 99)) },
      exitStatusMs: { p50: round(median(execs.map((e) => e.statusMs))), p99: round(percentile(execs.map((e) => e.statusMs), 99)) },
    };
    o.log(`streams: exec -- true, ${o.execRuns} runs: first frame p50 ${exec.firstFrameMs.p50} ms, exit status p50 ${exec.exitStatusMs.p50} ms (p99 ${exec.exitStatusMs.p99} ms)`);

    const direct = await bestMBps(podIP, PORT, o);
    const one = await portForward(kubeconfig);
    forwards.push(one.child);
    const forwarded = await bestMBps('127.0.0.1', one.port, o);
    one.child.kill();
    o.log(`streams: ${o.megabytes} MB download, best of ${o.runs}: direct ${direct} MB/s, through kubectl port-forward ${forwarded} MB/s`);

    await tracker.start();
    const quiet: number[] = [];
    const busy: number[] = [];
    let busyBytes = 0;
    let busyMs = 0;
    const busyRound = async (r: number): Promise<number> => {
      const stop = new AbortController();
      const tunnels = await Promise.all(Array.from({ length: o.forwards }, () => portForward(kubeconfig)));
      forwards.push(...tunnels.map((t) => t.child));
      const began = performance.now();
      const flows = tunnels.map((t) => download('127.0.0.1', t.port, 0, stop.signal));
      const p99 = await startupRound(c.api, tracker, `busy-${r}`, o);
      stop.abort();
      busyBytes += (await Promise.all(flows)).reduce((sum, f) => sum + f.bytes, 0);
      busyMs += performance.now() - began;
      for (const t of tunnels) t.child.kill();
      return p99;
    };
    // Alternating which goes first (quiet-busy, busy-quiet, …) so that a drift of the machine's load weighs on both alike.
    for (let r = 0; r < o.rounds; r++) {
      if (r % 2 === 0) quiet.push(await startupRound(c.api, tracker, `quiet-${r}`, o));
      busy.push(await busyRound(r));
      if (r % 2 === 1) quiet.push(await startupRound(c.api, tracker, `quiet-${r}`, o));
      o.log(`streams: round ${r + 1}: startup p99 quiet ${quiet.at(-1)} ms, with ${o.forwards} busy port-forwards ${busy.at(-1)} ms`);
    }
    const p = medianDifferenceP(quiet, busy);
    o.log(`streams: startup p99 median quiet ${median(quiet)} ms, busy ${median(busy)} ms; permutation test p = ${round(p, 3)} (${p < 0.05 ? 'beyond' : 'within'} noise)`);
    return {
      nodes: o.nodes,
      exec: { runs: o.execRuns, ...exec },
      portForward: { megabytes: o.megabytes, runs: o.runs, throughputMBps: { direct, forwarded, ratio: round(forwarded / direct, 3) } },
      busyForwards: {
        forwards: o.forwards,
        rounds: o.rounds,
        podsPerRound: o.podsPerRound,
        podsPerSecond: o.podsPerSecond,
        forwardedMBps: round(busyBytes / 1e6 / (busyMs / 1000)),
        startupP99Ms: { quiet: round(median(quiet)), busy: round(median(busy)), ratio: round(median(busy) / median(quiet), 2), p: round(p, 3), withinNoise: p >= 0.05, quietRounds: quiet, busyRounds: busy },
      },
    };
  } finally {
    tracker.stop();
    for (const f of forwards) f.kill();
    await removeSource(c.api).catch((err: Error) => o.log(`streams: ${err.message}: its process may outlive the edge`));
    await edge.stop(30_000);
    await c.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
