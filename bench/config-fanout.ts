import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { realClock, wallDelay } from '../shared/clock.js';
import type { Pod } from '../shared/types.js';
import { startFleet, type Fleet } from '../sim/fleet.js';
import { Cluster } from '../sim/local-cluster.js';
import { benchConfigMap, cachedVersion, mountedVersion, podMounting } from './mounted-config.js';
import { readyNodes, waitUntil } from './scale-cluster.js';
import { createAll } from './scheduler.js';
import { median, round } from './stats.js';

/*
 * One ConfigMap mounted by a pod on each of `nodes` hollow edges (sim/fleet.ts, in this process,
 * over the in-memory broker: what is timed is the hub, the edges and edged, not sockets). It is
 * updated `updates` times; each update is timed from the API call until every edge caches the new
 * version, and until every pod's mounted (in-memory) file holds it; the hub's down messages and
 * payload bytes are counted over the same span. Medians over the updates.
 */

export interface ConfigFanoutReport {
  nodes: number;
  updates: number;
  configMapBytes: number;
  /** Update → every edge caches the new version (ms), median. */
  allCachedMs: number;
  /** Update → every pod's mounted file holds it (ms), median. */
  allMountedMs: number;
  /** Down messages the hub published (sends and re-sends) per update, median. */
  hubMessages: number;
  /** Their payload bytes, median. */
  hubBytes: number;
}

const NAME = 'fanout';
const BYTES = 1024;
const cmRef = { resource: 'configmaps', namespace: 'default', name: NAME };
const podsRef = { resource: 'pods', namespace: 'default' };
const isRunning = (p: Pod): boolean => p.status?.phase === 'Running' && (p.status.containerStatuses ?? []).every((c) => c.ready);

interface UpdateSample {
  cachedMs: number;
  mountedMs: number;
  messages: number;
  bytes: number;
}

/** Every node's pod uid, once every pod is Running. */
async function podsRunning(cluster: Cluster, fleet: Fleet, log: (line: string) => void): Promise<Map<string, string>> {
  let pods: Pod[] = [];
  let running = 0;
  let logged = performance.now();
  const allRunning = async (): Promise<boolean> => {
    pods = (await cluster.api.list<Pod>(podsRef)).items;
    running = pods.filter(isRunning).length;
    if (performance.now() - logged > 10_000) [logged] = [performance.now(), log(`${running} of ${pods.length} pods Running`)];
    return running === fleet.names.length;
  };
  await waitUntil(allRunning, 'every pod Running', 300_000);
  return new Map(pods.map((p) => [p.spec.nodeName!, p.metadata.uid!]));
}

/** Waits until `done(node)` holds for every node; the time (from `began`) at which the last one did. */
export async function lastOf(nodes: string[], done: (node: string) => boolean, began: number, timeoutMs = 60_000): Promise<number> {
  const pending = new Set(nodes);
  while (pending.size) {
    for (const node of pending) if (done(node)) pending.delete(node);
    if (!pending.size) break;
    if (performance.now() - began > timeoutMs) throw new Error(`${pending.size} nodes still behind after ${timeoutMs} ms`);
    await wallDelay(5);
  }
  return performance.now() - began;
}

async function timeUpdate(cluster: Cluster, fleet: Fleet, uids: Map<string, string>, version: string): Promise<UpdateSample> {
  const before = cluster.cloud.hub.stats();
  const began = performance.now();
  await cluster.api.patch(cmRef, { data: { version } }, 'merge');
  const edge = (node: string) => fleet.edges.get(node)!;
  const cachedMs = await lastOf(fleet.names, (n) => cachedVersion(edge(n), NAME) === version, began);
  const mountedMs = await lastOf(fleet.names, (n) => mountedVersion(edge(n), uids.get(n)!, NAME) === version, began);
  const after = cluster.cloud.hub.stats();
  return { cachedMs, mountedMs, messages: after.sent + after.resent - before.sent - before.resent, bytes: after.sentBytes - before.sentBytes };
}

export async function runConfigFanout(o: { nodes: number; updates: number; log: (line: string) => void }): Promise<ConfigFanoutReport> {
  const cluster = await Cluster.start({ transport: 'memory', clock: realClock, nodes: 0 });
  let fleet: Fleet | undefined;
  try {
    const dataDir = await mkdtemp(join(tmpdir(), 'kedge-bench-fanout-'));
    fleet = await startFleet({ nodes: o.nodes, brokerUrl: cluster.cloud.brokerUrl, token: cluster.cloud.credentials.edge, dataDir, transport: (id) => cluster.transport(id), removeDataOnStop: true });
    await waitUntil(async () => (await readyNodes(cluster.api)) === o.nodes, `${o.nodes} nodes Ready`, 180_000);
    o.log(`${o.nodes} hollow edges Ready`);
    await cluster.api.create(cmRef, benchConfigMap(NAME, 'v0', BYTES));
    const names = fleet.names;
    await createAll(names.length, 32, (i) => cluster.api.create(podsRef, podMounting(`fanout-${i}`, names[i]!, { configMaps: [NAME] })));
    o.log(`${names.length} pods created`);
    const uids = await podsRunning(cluster, fleet, o.log);
    await lastOf(names, (n) => mountedVersion(fleet!.edges.get(n)!, uids.get(n)!, NAME) === 'v0', performance.now());
    o.log(`${o.nodes} edges each run a pod mounting ConfigMap ${NAME} (${BYTES} B)`);
    const samples: UpdateSample[] = [];
    for (let u = 1; u <= o.updates; u++) {
      await wallDelay(2_000); // acks and statuses of the last round settle
      const s = await timeUpdate(cluster, fleet, uids, `v${u}`);
      o.log(`update ${u}: all cached ${round(s.cachedMs)} ms, all mounted ${round(s.mountedMs)} ms, ${s.messages} messages, ${s.bytes} bytes from the hub`);
      samples.push(s);
    }
    const of = (k: keyof UpdateSample): number => round(median(samples.map((s) => s[k])));
    return { nodes: o.nodes, updates: o.updates, configMapBytes: BYTES, allCachedMs: of('cachedMs'), allMountedMs: of('mountedMs'), hubMessages: of('messages'), hubBytes: of('bytes') };
  } finally {
    await fleet?.stop();
    await cluster.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (line: string): void => void process.stderr.write(`[fanout] ${line}\n`);
  console.log(JSON.stringify(await runConfigFanout({ nodes: Number(process.argv[2] ?? 1000), updates: Number(process.argv[3] ?? 5), log }), null, 2));
}
