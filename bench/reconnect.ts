import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { firstValueFrom, filter, skip } from 'rxjs';
import { realClock } from '../shared/clock.js';
import type { Pod } from '../shared/types.js';
import { Cluster } from '../sim/local-cluster.js';
import { allPods, nodeConverged } from './convergence.js';
import { partition, until } from './partition.js';
import { configReconnect } from './reconnect-config.js';
import { median, percentile, round } from './stats.js';

/*
 * Reconnect after a partition. Each run pulls the cable (cut, plus a reset so both ends know at
 * once), changes things in the cloud, heals, and times how long until the edge and the cloud
 * agree again: from the heal, and from the moment the edge's MQTT session is back.
 */

const ref = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const pinned = (name: string, node: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'bench' } },
  spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/bench:1' }] },
});

async function converged(cluster: Cluster, nodes: string[]): Promise<boolean> {
  const pods = await allPods(cluster);
  for (const node of nodes) if (!(await nodeConverged(cluster, node, pods))) return false;
  return true;
}

interface HealTiming {
  fromHealMs: number;
  fromConnectMs: number;
  messages: number;
  bytes: number;
  bytesDown: number;
}

async function healAndTime(cluster: Cluster, nodes: string[]): Promise<HealTiming> {
  const down = (): number => nodes.reduce((sum, n) => sum + cluster.link(n).state().bytesDown, 0);
  const traffic = (): number => nodes.reduce((sum, n) => sum + cluster.link(n).state().bytesUp, down());
  const messages = (): number => {
    const s = cluster.cloud.hub.stats();
    return s.sent + s.resent + s.received;
  };
  const [bytes0, down0, messages0] = [traffic(), down(), messages()];
  const connected = nodes.map((n) => firstValueFrom(cluster.edge(n).connectivity$.pipe(skip(1), filter((c) => c.connected))));
  const healedAt = performance.now();
  for (const n of nodes) cluster.link(n).heal();
  let lastConnect = 0;
  void Promise.all(connected).then(() => (lastConnect = performance.now()));
  await until(() => converged(cluster, nodes), 'convergence');
  const doneAt = performance.now();
  await Promise.all(connected);
  return { fromHealMs: doneAt - healedAt, fromConnectMs: doneAt - (lastConnect || doneAt), messages: messages() - messages0, bytes: traffic() - bytes0, bytesDown: down() - down0 };
}

const CHANGES_MEASURED = 20;

/**
 * Bytes on the link (both ways, MQTT framing included) per pod change delivered while the node
 * is connected: a pod's labels change, until the edge has acked the new version (the apply
 * down, its ack up). Median over `CHANGES_MEASURED` pods, one at a time.
 */
async function bytesPerChange(cluster: Cluster, names: string[]): Promise<number> {
  const link = cluster.link('edge-1');
  const traffic = (): number => link.state().bytesUp + link.state().bytesDown;
  const samples: number[] = [];
  for (const [i, name] of names.slice(0, CHANGES_MEASURED).entries()) {
    const before = traffic();
    const pod = await cluster.api.patch<Pod>(ref(name), { metadata: { labels: { app: 'bench', change: String(i) } } }, 'merge');
    const acked = (): boolean => cluster.cloud.hub.ledger.get('edge-1', pod.metadata.uid!)?.resourceVersion === pod.metadata.resourceVersion;
    await until(async () => acked(), 'the edge to ack a changed pod');
    samples.push(traffic() - before);
  }
  return median(samples);
}

/** One node, 100 pods, 50 changes while offline (20 deletes, 20 creates, 10 relabels); 20 runs. */
export async function singleNode(runs = 20): Promise<Record<string, number>> {
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 1, links: true, store: 'durable' });
  try {
    let next = 0;
    const live: string[] = [];
    for (; next < 100; next++) live.push(`p${next}`);
    await Promise.all(live.map((name) => cluster.api.create(ref(name), pinned(name, 'edge-1'))));
    await until(() => converged(cluster, ['edge-1']), 'initial pods');
    const samples: HealTiming[] = [];
    for (let run = 0; run < runs; run++) {
      await partition(cluster, ['edge-1']);
      for (const name of live.splice(0, 20)) await cluster.api.delete(ref(name));
      for (let i = 0; i < 20; i++, next++) {
        await cluster.api.create(ref(`p${next}`), pinned(`p${next}`, 'edge-1'));
        live.push(`p${next}`);
      }
      for (const name of live.slice(0, 10)) await cluster.api.patch(ref(name), { metadata: { labels: { app: 'bench', run: String(run) } } }, 'merge');
      samples.push(await healAndTime(cluster, ['edge-1']));
    }
    const perChange = await bytesPerChange(cluster, live);
    const of = (k: keyof HealTiming) => samples.map((s) => s[k]);
    return {
      runs,
      p50FromConnectMs: round(median(of('fromConnectMs'))),
      p99FromConnectMs: round(percentile(of('fromConnectMs'), 99)),
      p50FromHealMs: round(median(of('fromHealMs'))),
      p99FromHealMs: round(percentile(of('fromHealMs'), 99)),
      messagesPerRun: median(of('messages')),
      bytesPerRun: median(of('bytes')),
      bytesDownPerRun: median(of('bytesDown')),
      bytesPerChange: perChange,
    };
  } finally {
    await cluster.stop();
  }
}

/** `nodes` nodes with one pod each, all cut; one change per node; all healed at once. */
export async function manyNodes(nodes = 100): Promise<Record<string, number>> {
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes, links: true, store: 'durable' });
  try {
    const names = [...cluster.edges.keys()];
    await Promise.all(names.map((n) => cluster.api.create(ref(`${n}-a`), pinned(`${n}-a`, n))));
    await until(() => converged(cluster, names), 'initial pods', 120_000);
    await partition(cluster, names);
    await Promise.all(names.map((n) => cluster.api.create(ref(`${n}-b`), pinned(`${n}-b`, n))));
    const t = await healAndTime(cluster, names);
    return { nodes, convergeFromHealMs: round(t.fromHealMs), convergeFromLastConnectMs: round(t.fromConnectMs), messages: t.messages, bytes: t.bytes };
  } finally {
    await cluster.stop();
  }
}

export interface ReconnectResults {
  singleNode: Record<string, number>;
  manyNodes: Record<string, number>;
  configMaps: Record<string, number> | object;
}

export async function runReconnectBench(resultsDir = 'bench/results'): Promise<ReconnectResults> {
  const result = { singleNode: await singleNode(), manyNodes: await manyNodes(), configMaps: await configReconnect({ runs: 10 }) };
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, 'reconnect.json'), JSON.stringify(result, null, 2) + '\n');
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await runReconnectBench(), null, 2));
}
