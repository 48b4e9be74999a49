import { Server, Socket } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Node, Pod } from '../../shared/types.js';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import type { LinkProxy } from '../../sim/link-proxy.js';
import { memoryWiring } from '../../sim/cluster-wiring.js';
import { eventually } from '../support/eventually.js';
import { runUntil, type Check } from '../support/settle.js';

/**
 * An in-process cloud (memory store, ports 0) and a hollow fleet on one FakeClock, over a
 * MemoryBroker (default), or over the embedded broker with a link proxy per edge ('mqtt').
 */
export interface FleetWorld {
  dir: string;
  clock: FakeClock;
  transport: 'memory' | 'mqtt';
  cloud: Cloud;
  fleet: Fleet;
  /** Pulls, plugs back or resets `node`'s cable (over memory: the MemoryBroker's; over mqtt: its link proxy's). */
  cut(node: string): void;
  heal(node: string): void;
  reset(node: string): void;
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

/** Wall time a wait over real sockets may take on a busy machine. */
export const REAL_WAIT_MS = 60_000;

/**
 * Waits for `check`. Over memory: on fake time only, failing after `budgetMs` of it. Over
 * mqtt the link proxies are real TCP, so the FakeClock steps while the wall clock runs.
 */
export function until<T>(world: FleetWorld, check: Check<T>, what: string, budgetMs = 60_000): Promise<T> {
  if (world.transport === 'memory') return runUntil(world.clock, check, what, { budgetMs });
  return eventually(world.clock, check, what, { wallTimeoutMs: REAL_WAIT_MS });
}

export async function startFleetWorld(nodes: number, transport: 'memory' | 'mqtt' = 'memory'): Promise<FleetWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-fleet-'));
  const clock = new FakeClock();
  // keepalive 1 s: a cut link is noticed within a few seconds.
  const timing = { ...defaultTiming, keepaliveMs: 1_000 };
  const wiring = transport === 'memory' ? memoryWiring({ clock, timing, logger: silentLogger }) : undefined;
  const cloud = await startCloud({ dataDir: join(dir, 'cloud'), apiPort: 0, mqttPort: 0, ...wiring?.cloud, store: 'memory', clock, timing, logger: silentLogger });
  try {
    const reach = wiring ? { transport: (await wiring.edge('', cloud)).transport! } : { links: true };
    const fleet = await startFleet({ nodes, brokerUrl: cloud.brokerUrl, token: cloud.credentials.edge, dataDir: join(dir, 'fleet'), clock, timing, ...reach, random: () => 0.5 });
    const link = (node: string): LinkProxy => fleet.links.get(node)!;
    const stop = async (): Promise<void> => {
      await fleet.stop();
      await cloud.stop();
      await rm(dir, { recursive: true, force: true });
    };
    return {
      dir, clock, transport, cloud, fleet, stop,
      cut: (node) => (wiring ? wiring.cut(node) : void link(node).cut()),
      heal: (node) => (wiring ? wiring.heal(node) : void link(node).heal()),
      reset: (node) => (wiring ? wiring.reset(node) : void link(node).reset()),
    };
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

export async function waitConverged(world: FleetWorld, count: number, what: string, budgetMs?: number): Promise<Pod[]> {
  return until(world, async () => {
    const pods = await cloudPods(world);
    return pods.length === count && allRunning(pods) && (await edgesAgree(world, pods)) && pods;
  }, what, budgetMs);
}

/** Open TCP sockets and servers in this process. */
export const tcpHandles = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;

/** Each open TCP socket's ends and each server's port, for a failure message. */
export function describeTcpHandles(): string {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles
    .filter((h): h is Socket | Server => h instanceof Socket || h instanceof Server)
    .map((h) => (h instanceof Socket ? `socket ${h.localPort ?? '?'}->${h.remotePort ?? '?'}${h.destroyed ? ' (destroyed)' : ''}` : `server ${JSON.stringify(h.address())}`))
    .join(', ');
}
