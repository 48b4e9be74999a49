import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { eventually } from '../support/eventually.js';

/** An in-process cloud (memory store, ports 0) and a hollow fleet with links, on one FakeClock. */
export interface FleetWorld {
  dir: string;
  clock: FakeClock;
  cloud: Cloud;
  fleet: Fleet;
  stop(): Promise<void>;
}

export const podsRef = { resource: 'pods', namespace: 'default' };
export const podRef = (name: string) => ({ ...podsRef, name });

export function pinned(name: string, node: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'fleet-test' } },
    spec: { nodeName: node, containers: [{ name: 'main', image: 'kedge.io/app:1' }] },
  };
}

export async function startFleetWorld(nodes: number): Promise<FleetWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-fleet-'));
  const clock = new FakeClock();
  // keepalive 1 s: a cut link is noticed within a few seconds of wall time.
  const timing = { ...defaultTiming, keepaliveMs: 1_000 };
  const cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, store: 'memory', clock, timing, logger: silentLogger });
  try {
    const fleet = await startFleet({ nodes, brokerUrl: cloud.brokerUrl, token: cloud.credentials.edge, dataDir: join(dir, 'fleet'), clock, timing, links: true, random: () => 0.5 });
    const stop = async (): Promise<void> => {
      await fleet.stop();
      await cloud.stop();
      await rm(dir, { recursive: true, force: true });
    };
    return { dir, clock, cloud, fleet, stop };
  } catch (err) {
    await cloud.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

export async function cloudPods(world: FleetWorld): Promise<Pod[]> {
  return (await world.cloud.api.list<Pod>(podsRef)).items;
}

const isReady = (n: Node): boolean => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function readyNodes(world: FleetWorld): Promise<string[]> {
  const nodes = await world.cloud.api.list<Node>({ resource: 'nodes' });
  return nodes.items.filter(isReady).map((n) => n.metadata.name!);
}

export const allRunning = (pods: Pod[]): boolean => pods.every((p) => p.status?.phase === 'Running' && p.spec?.nodeName);

/** Pod names per node, as the cloud binds them. */
export function boundNames(pods: Pod[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of pods) out.set(p.spec!.nodeName!, [...(out.get(p.spec!.nodeName!) ?? []), p.metadata.name!].sort());
  return out;
}

/** True once every edge runs exactly (by uid, Running) the pods the cloud binds to it. */
export async function edgesAgree(world: FleetWorld, pods: Pod[]): Promise<boolean> {
  const uidsByNode = new Map<string, string[]>();
  for (const p of pods) uidsByNode.set(p.spec!.nodeName!, [...(uidsByNode.get(p.spec!.nodeName!) ?? []), p.metadata.uid!]);
  for (const node of world.fleet.names) {
    const held = (await world.fleet.nodePods(node))!;
    const want = (uidsByNode.get(node) ?? []).sort().join();
    if (held.map((p) => p.metadata.uid).sort().join() !== want) return false;
    if (!held.every((p) => p.status?.phase === 'Running')) return false;
  }
  return true;
}

export async function waitConverged(world: FleetWorld, count: number, what: string, wallTimeoutMs = 20_000): Promise<Pod[]> {
  return eventually(world.clock, async () => {
    const pods = await cloudPods(world);
    return pods.length === count && allRunning(pods) && (await edgesAgree(world, pods)) && pods;
  }, what, { wallTimeoutMs });
}

/** Open TCP sockets and servers in this process. */
export const tcpHandles = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;
