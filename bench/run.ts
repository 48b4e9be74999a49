import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runConfigFanout } from './config-fanout.js';
import { DEFAULT_EDGE_PODS, runEdgeBench } from './edge.js';
import { runEdgeConfigMemory } from './edge-config.js';
import { runFailoverBench } from './failover.js';
import { runReconnectBench } from './reconnect.js';
import { runProxyBench } from './proxy.js';
import { mergeLatest } from './latest-merge.js';
import { writeReport } from './report.js';
import { runScaleBench } from './scale.js';
import { runServiceSync } from './service-sync.js';
import { runStreamsBench } from './streams.js';
import { runSchedulerBench } from './scheduler.js';
import { runStoreBench } from './store.js';
import { runEtcdBench } from './etcd.js';
import { formatApiRules, runApiRulesBench } from './api-rules.js';
import { formatBroker, runBrokerBench } from './broker.js';

/*
 * npm run bench [-- --nodes N --pods P --rate R --edge-pods E --only store,reconnect,scale,scheduler,edge,proxy,streams,etcd,failover,api-rules,broker]
 * [--store etcd --etcd-members M] (or KEDGE_BENCH_STORE=etcd): the scale suite's cloud on an etcd cluster of M members
 * (default 3) that the bench starts; its figures go to `scaleEtcd`, apart from the embedded store's.
 * [--save-as KEY]: the scale suite's figures go to KEY (e.g. `--nodes 2000 --pods 20000 --save-as scale2000`),
 * and the report sets them beside the 1,000-node run's with how each grew.
 * Runs the suites, writes bench/results/latest.json and a dated copy, regenerates docs/benchmarks.md.
 * A partial run (--only) keeps the other suites' last figures in latest.json and the report; the
 * dated copy holds only what was measured.
 */
const SUITES = ['store', 'reconnect', 'scale', 'scheduler', 'edge', 'proxy', 'streams', 'etcd', 'failover', 'api-rules', 'broker'];
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const resultsDir = join(root, 'bench', 'results');
const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    pods: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '100' },
    'edge-pods': { type: 'string', default: String(DEFAULT_EDGE_PODS) },
    only: { type: 'string', default: SUITES.join(',') },
    store: { type: 'string', default: process.env.KEDGE_BENCH_STORE ?? 'durable' },
    'etcd-members': { type: 'string', default: '3' },
    // The scale suite's figures under this key of latest.json (e.g. scale2000), beside the 1,000-node run's.
    'save-as': { type: 'string' },
  },
});
const only = new Set(values.only.split(','));
if (values.store !== 'durable' && values.store !== 'etcd') throw new Error(`--store ${values.store}: durable or etcd`);
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
const began = performance.now();
const commit = (): string => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  } catch {
    return 'unknown';
  }
};

const results: Record<string, unknown> = {};
if (only.has('store')) {
  log('store: durable writes/s at 1k and 50k objects');
  results.store = await runStoreBench({ resultsDir });
}
if (only.has('reconnect')) {
  log('reconnect: 1 node x 20 runs, then 100 nodes at once, then 1 node with 100 pods mounting 50 ConfigMaps x 10 runs');
  const reconnect = await runReconnectBench(resultsDir);
  results.reconnect = reconnect;
  // Bytes on the link per pod change delivered to a connected edge (issue 24's lean sync).
  results.bytesPerChange = reconnect.singleNode.bytesPerChange;
}
if (only.has('scale')) {
  const nodes = Number(values.nodes);
  const pods = Number(values.pods);
  const scale = { nodes, pods, burstShare: 0.2, podsPerSecond: Number(values.rate), idleSeconds: 20, log };
  if (values.store === 'etcd') {
    const members = Number(values['etcd-members']);
    log(`scale: ${nodes} hollow nodes, ${pods} pods, the cloud on etcd of ${members} member(s)`);
    results.scaleEtcd = await runScaleBench({ ...scale, etcdMembers: members });
  } else if (values['save-as']) {
    log(`scale: ${nodes} hollow nodes, ${pods} pods, saved as ${values['save-as']}`);
    results[values['save-as']] = await runScaleBench(scale);
  } else {
    log(`scale: ${nodes} hollow nodes, ${pods} pods`);
    Object.assign(results, await runScaleBench(scale));
  }
}
if (only.has('scheduler')) {
  const nodes = Number(values.nodes);
  const pods = Number(values.pods);
  log(`scheduler: ${nodes} nodes, ${pods} pending pods, in process, median of 3 runs`);
  results.scheduler = await runSchedulerBench({ nodes, pods, runs: 3, log });
}
if (only.has('edge')) {
  const pods = Number(values['edge-pods']);
  log(`edge: one edge in its own process holding ${pods} sim pods: memory per pod, steady sync time`);
  results.edge = await runEdgeBench({ pods, syncs: 50, log }, resultsDir);
  log('edge: memory per cached ConfigMap and per Secret (1,000 of 1 KiB, mounted by 100 pods), median of 3 runs of each');
  results.edgeConfig = await runEdgeConfigMemory({ pods: 100, objects: 1000, runs: 3, log });
  const nodes = Number(values.nodes);
  log(`edge: one ConfigMap mounted on ${nodes} hollow edges, updated 5 times`);
  results.configFanout = await runConfigFanout({ nodes, updates: 5, log });
  log(`edge: 100 Services of 10 endpoints synced to the half of ${nodes} hollow edges that run a pod of their namespace, one Endpoints changed 5 times`);
  results.serviceSync = await runServiceSync({ nodes, services: 100, endpoints: 10, changes: 5, log });
}
if (only.has('proxy')) {
  log('proxy: kube-proxy\'s userspace data plane against a direct connection: 200 MB download (best of 3), 20,000 round trips of 64 B');
  results.proxy = await runProxyBench({ megabytes: 200, runs: 3, rounds: 20_000, size: 64, log });
}
if (only.has('streams')) {
  const nodes = Number(values.nodes);
  log(`streams: exec round trips, kubectl port-forward against a direct connection, and pod startup on ${nodes} hollow edges with and without ten busy port-forwards`);
  results.streams = await runStreamsBench({ nodes, execRuns: 50, megabytes: 100, runs: 3, forwards: 10, rounds: 6, podsPerRound: 500, podsPerSecond: 100, log });
}
if (only.has('etcd')) {
  log('etcd: the embedded durable store against etcd of 1 and 3 members: store writes/s, API mutating and list p99, interleaved rounds');
  results.etcd = await runEtcdBench({ resultsDir, log });
}
if (only.has('failover')) {
  log('failover: 3 clouds on one etcd, 2 edges; kill -9 of the leading cloud x 10 runs (kube\'s lease 15 s)');
  results.failover = await runFailoverBench({ runs: 10, log });
}
if (only.has('api-rules')) {
  const pods = Number(values.pods);
  log(`api-rules: ${pods} pods on two apiservers, validation and field ownership on and off; mutating p50/p99 and full lists, interleaved rounds`);
  const apiRules = await runApiRulesBench({ pods, log });
  for (const line of formatApiRules(apiRules).split('\n')) log(line);
  results.apiRules = apiRules;
}
if (only.has('broker')) {
  log('broker: kedge\'s embedded broker (rate limit on and off), plain aedes and Mosquitto, each in its own process: 32 nodes and the hub, QoS 1, 300-byte messages, 64 in flight; fan-in, fan-out, one node; median of 3 interleaved rounds of 2 s per load');
  const broker = await runBrokerBench({ rounds: 3, seconds: 2, log });
  for (const line of formatBroker(broker).split('\n')) log(line);
  results.broker = broker;
}
const date = new Date().toISOString();
Object.assign(results, { date, commit: commit(), durationSeconds: Math.round((performance.now() - began) / 1000) });

await mkdir(resultsDir, { recursive: true });
const latestPath = join(resultsDir, 'latest.json');
// The scale suite on etcd, or saved under its own key, leaves the 1,000-node embedded figures as they were.
const onEtcd = values.store === 'etcd' && only.has('scale');
const savedApart = onEtcd || (values['save-as'] !== undefined && only.has('scale'));
const scaleLabel = onEtcd ? 'scale on etcd' : `scale as ${values['save-as']}`;
const partial = SUITES.some((s) => !only.has(s)) || savedApart;
const previous = (await readFile(latestPath, 'utf8').then(JSON.parse, () => ({}))) as Record<string, unknown>;
// Said in the report, so that the other figures are not taken for this run's.
const onlySuites = partial ? [...only].map((s) => (s === 'scale' && savedApart ? scaleLabel : s)) : undefined;
const latest = mergeLatest(previous, results, { onlySuites });
await writeFile(latestPath, JSON.stringify(latest, null, 2) + '\n');
await writeFile(join(resultsDir, `${date.replace(/[:.]/g, '-')}.json`), JSON.stringify(results, null, 2) + '\n');
await writeReport(latest, resultsDir, join(root, 'docs'));
log(`done in ${results.durationSeconds} s: bench/results/latest.json, docs/benchmarks.md`);
