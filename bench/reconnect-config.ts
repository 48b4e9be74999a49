import { filter, firstValueFrom, skip } from 'rxjs';
import { realClock, wallDelay } from '../shared/clock.js';
import type { Pod } from '../shared/types.js';
import { Cluster } from '../sim/local-cluster.js';
import { allPods, nodeConverged } from './convergence.js';
import { benchConfigMap, mountedVersion, podMounting } from './mounted-config.js';
import { partition, until } from './partition.js';
import { median, round } from './stats.js';

/*
 * Reconnect with ConfigMaps: one node runs `pods` sim pods, pod i mounting ConfigMaps i and i+1
 * (mod `configMaps`). Each run pulls its cable, changes `changed` of the ConfigMaps, heals, and
 * times how long until every pod's mounted (in-memory) files hold the new versions; with the
 * messages both ways and the bytes on the link from the heal until a second after that (the
 * edge's acks included). Medians over the runs.
 */

export interface ConfigReconnectReport {
  runs: number;
  pods: number;
  configMaps: number;
  changedPerRun: number;
  p50FromHealMs: number;
  p50FromConnectMs: number;
  maxFromHealMs: number;
  messagesPerRun: number;
  bytesPerRun: number;
}

const NODE = 'edge-1';
/** Messages and bytes are counted until this long after the files are current, so that the edge's acks are in. */
const COUNT_ACKS_MS = 1_000;
const cmRef = (name: string) => ({ resource: 'configmaps', namespace: 'default', name });
const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const cmName = (i: number): string => `cm-${i}`;

/** The ConfigMaps pod `i` mounts. */
export const mountsOf = (i: number, configMaps: number): string[] => [...new Set([cmName(i % configMaps), cmName((i + 1) % configMaps)])];

interface Sample {
  fromHealMs: number;
  fromConnectMs: number;
  messages: number;
  bytes: number;
}

/** Whether every pod's every mount holds the version `versions` wants. */
function allCurrent(cluster: Cluster, pods: Pod[], configMaps: number, versions: Map<string, string>): boolean {
  const edge = cluster.edge(NODE);
  return pods.every((p, i) => mountsOf(i, configMaps).every((cm) => mountedVersion(edge, p.metadata.uid!, cm) === versions.get(cm)));
}

async function healAndTime(cluster: Cluster, mounted: () => boolean): Promise<Sample> {
  const link = cluster.link(NODE);
  const traffic = (): number => link.state().bytesUp + link.state().bytesDown;
  const messages = (): number => {
    const s = cluster.cloud.hub.stats();
    return s.sent + s.resent + s.received;
  };
  const [bytes0, messages0] = [traffic(), messages()];
  const connected = firstValueFrom(cluster.edge(NODE).connectivity$.pipe(skip(1), filter((c) => c.connected)));
  let connectedAt = 0;
  void connected.then(() => (connectedAt = performance.now()));
  const healedAt = performance.now();
  link.heal();
  const deadline = healedAt + 60_000;
  while (!mounted()) {
    if (performance.now() > deadline) throw new Error('mounted files not current 60 s after the heal');
    await wallDelay(5);
  }
  const doneAt = performance.now();
  await connected;
  await wallDelay(COUNT_ACKS_MS);
  return { fromHealMs: doneAt - healedAt, fromConnectMs: doneAt - (connectedAt || doneAt), messages: messages() - messages0, bytes: traffic() - bytes0 };
}

export async function configReconnect(o: { runs: number; pods?: number; configMaps?: number; changed?: number }): Promise<ConfigReconnectReport> {
  const { runs, pods: podCount = 100, configMaps = 50, changed = 25 } = o;
  const cluster = await Cluster.start({ transport: 'mqtt', clock: realClock, nodes: 1, links: true, store: 'durable', simVolumes: 'memory' });
  try {
    const versions = new Map<string, string>();
    for (let i = 0; i < configMaps; i++) {
      await cluster.api.create(cmRef(cmName(i)), benchConfigMap(cmName(i), 'v0'));
      versions.set(cmName(i), 'v0');
    }
    const names = Array.from({ length: podCount }, (_, i) => `cfg-${i}`);
    await Promise.all(names.map((name, i) => cluster.api.create(podRef(name), podMounting(name, NODE, { configMaps: mountsOf(i, configMaps) }))));
    await until(async () => nodeConverged(cluster, NODE, await allPods(cluster)), 'pods running');
    const byName = new Map((await allPods(cluster)).map((p) => [p.metadata.name, p]));
    const pods = names.map((n) => byName.get(n)!);
    const current = (): boolean => allCurrent(cluster, pods, configMaps, versions);
    await until(async () => current(), 'the first versions mounted');
    const samples: Sample[] = [];
    for (let run = 1; run <= runs; run++) {
      await partition(cluster, [NODE]);
      for (let j = 0; j < changed; j++) {
        const name = cmName((run * changed + j) % configMaps);
        await cluster.api.patch(cmRef(name), { data: { version: `v${run}` } }, 'merge');
        versions.set(name, `v${run}`);
      }
      samples.push(await healAndTime(cluster, current));
    }
    const of = (k: keyof Sample): number[] => samples.map((s) => s[k]);
    return {
      runs,
      pods: podCount,
      configMaps,
      changedPerRun: changed,
      p50FromHealMs: round(median(of('fromHealMs'))),
      p50FromConnectMs: round(median(of('fromConnectMs'))),
      maxFromHealMs: round(Math.max(...of('fromHealMs'))),
      messagesPerRun: median(of('messages')),
      bytesPerRun: median(of('bytes')),
    };
  } finally {
    await cluster.stop();
  }
}
