import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../shared/log.js';
import type { ObjectList, Pod } from '../../shared/types.js';
import { startControlApi, type ControlApi, type LinkTotals } from '../../sim/control-api.js';
import { createFleetPods, fleetPod, fleetPodNames, FLEET_LABEL } from '../../sim/fleet-pods.js';
import { waitFor } from '../support/wait.js';
import { boundNames, cloudPods, podRef, readyNodes, REAL_WAIT_MS, startFleetWorld, tcpHandles, describeTcpHandles, until, waitConverged, type FleetWorld } from './fleet-fixture.js';

const NODES = 20;

// Over real MQTT: the control API's /links endpoints act on the link proxies (real TCP), and stop must release real sockets.
describe('a hollow fleet of 20 edges in one process', { timeout: 180_000 }, () => {
  let world: FleetWorld;
  let control: ControlApi;
  let baseline: number;
  const post = async <T>(path: string): Promise<T> => (await (await fetch(`${control.url}${path}`, { method: 'POST' })).json()) as T;
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${control.url}${path}`);
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    baseline = tcpHandles();
    world = await startFleetWorld(NODES, 'mqtt');
    control = await startControlApi({ links: world.fleet.links, pods: (node) => world.fleet.nodePods(node), logger: silentLogger });
  });
  afterAll(async () => {
    await control?.close();
    await world?.stop();
  });

  it('registers every hollow edge as a Ready node, each with its own link', async () => {
    expect(world.fleet.names).toEqual(Array.from({ length: NODES }, (_, i) => `hollow-${i + 1}`));
    expect([...world.fleet.edges.values()].every((e) => e.localApiUrl === null)).toBe(true);
    await until(world, async () => (await readyNodes(world)).length === NODES, '20 Ready nodes');
    expect((await readyNodes(world)).sort()).toEqual([...world.fleet.names].sort());
    await waitFor(() => world.fleet.linkTotals().connections === NODES, 'a connection per link');
    expect(await get<LinkTotals>('/links/totals')).toMatchObject({ status: 200, body: { links: NODES, connections: NODES, cut: 0 } });
  });

  it('runs exactly the pods the scheduler bound to each edge', async () => {
    const pods = fleetPodNames(world.fleet.names.slice(0, 20), 2).map((name) => fleetPod(name, 'hollow'));
    expect(await createFleetPods(world.cloud.api, pods, { concurrency: 8 })).toBe(40);
    expect(await createFleetPods(world.cloud.api, pods.slice(0, 2), {})).toBe(0); // already there: not an error
    const running = await waitConverged(world, 40, '40 pods Running, each on the edge it is bound to');
    expect(running.every((p) => p.metadata.labels?.[FLEET_LABEL] === 'hollow')).toBe(true);
    const bound = boundNames(running);
    expect(bound.size).toBeGreaterThan(1); // spread, not piled on one node
    for (const node of world.fleet.names) {
      const held = (await world.fleet.nodePods(node))!;
      expect(held.map((p) => p.metadata.name).sort()).toEqual(bound.get(node) ?? []);
    }
    const [node, names] = [...bound][0]!;
    const listed = await get<ObjectList<Pod>>(`/nodes/${node}/pods`);
    expect(listed.status).toBe(200);
    expect(listed.body.kind).toBe('PodList');
    expect(listed.body.items.map((p) => p.metadata.name).sort()).toEqual(names);
    expect((await get('/nodes/nobody/pods')).status).toBe(404);
    expect(world.fleet.nodePods('nobody')).toBeUndefined();
  });

  it('loses every node on cut-all and converges again on heal-all', async () => {
    const cut = await post<LinkTotals>('/links/cut-all');
    expect(cut).toMatchObject({ links: NODES, cut: NODES });
    const gone = (): boolean => !world.cloud.hub.connectedNodes().some((n) => n.startsWith('hollow-'));
    await until(world, gone, 'the cloud to lose every hollow node');
    const victim = (await cloudPods(world))[0]!;
    await world.cloud.api.delete(podRef(victim.metadata.name!));
    expect((await world.fleet.nodePods(victim.spec!.nodeName!))!.some((p) => p.metadata.uid === victim.metadata.uid)).toBe(true);

    expect(await post<LinkTotals>('/links/heal-all')).toMatchObject({ links: NODES, cut: 0 });
    await until(world, () => world.cloud.hub.connectedNodes().filter((n) => n.startsWith('hollow-')).length === NODES, 'every node back');
    await waitConverged(world, 39, 'the deleted pod gone from its edge, the rest still Running');
    const hellos = new Set<string>();
    const subs = [...world.fleet.edges.values()].map((e) => e.hub.hellos$.subscribe(() => hellos.add(e.nodeName)));
    expect(await post<LinkTotals>('/links/reset-all')).toMatchObject({ links: NODES, cut: 0 });
    await until(world, () => hellos.size === NODES, 'a new session on every edge after reset-all');
    subs.forEach((s) => s.unsubscribe());
    await waitConverged(world, 39, 'still converged after reset-all');
  });

  it('releases every socket, timer and file on stop', async () => {
    const ports = [...world.fleet.links.values()].map((l) => l.port);
    await world.fleet.stop();
    await world.fleet.stop(); // idempotent
    await waitFor(() => world.cloud.hub.connectedNodes().length === 0, 'every node gone from the broker');
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: ports[0]! });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
    await control.close();
    await world.stop();
    await waitFor(() => tcpHandles() === baseline, `TCP handles back to ${baseline} (now ${tcpHandles()}: ${describeTcpHandles()})`, REAL_WAIT_MS, 20);
  });
});
