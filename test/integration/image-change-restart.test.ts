import { afterEach, describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import { FakeClock } from '../../shared/clock.js';
import type { ContainerStatus, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { runUntil } from '../support/settle.js';

/** A pod update that changes a container's image restarts that container on its edge, as the kubelet does. */

const ref = { resource: 'pods', namespace: 'default', name: 'web' };
const web: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: 'kedge.io/web:1' }, { name: 'side', image: 'kedge.io/side:1' }] },
};

const statusOf = (pod: Pod, name: string): ContainerStatus | undefined => pod.status?.containerStatuses?.find((s) => s.name === name);

async function eventsOf(c: Cluster<FakeClock>, container: string): Promise<KubeEvent[]> {
  const { items } = await c.api.list<KubeEvent>({ resource: 'events', namespace: 'default' });
  return items.filter((e) => e.involvedObject.name === 'web' && e.involvedObject.fieldPath === `spec.containers{${container}}`);
}

async function runningPod(c: Cluster<FakeClock>): Promise<Pod> {
  await c.api.create(ref, web);
  return runUntil(c.clock, async () => {
    const pod = await c.api.get<Pod>(ref);
    return pod.status?.phase === 'Running' && ['app', 'side'].every((n) => statusOf(pod, n)?.state.running) && pod;
  }, 'web Running');
}

const newImage = (c: Cluster<FakeClock>): Promise<Pod> => c.api.patch<Pod>(ref, { spec: { containers: [{ name: 'app', image: 'kedge.io/web:2' }] } }, 'strategic');

/** Waits until the app container runs the new image as its second attempt. */
function restarted(c: Cluster<FakeClock>): Promise<Pod> {
  return runUntil(c.clock, async () => {
    const pod = await c.api.get<Pod>(ref);
    const app = statusOf(pod, 'app');
    return app?.image === 'kedge.io/web:2' && app.restartCount === 1 && app.state.running && pod;
  }, 'app restarted with kedge.io/web:2');
}

describe('a changed image restarts its container', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('kills and starts exactly that container, with the kubelet events, restartCount 1', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const before = await runningPod(c);
    await newImage(c);
    const after = await restarted(c);
    expect(statusOf(after, 'side')).toMatchObject({ restartCount: 0, image: 'kedge.io/side:1', containerID: statusOf(before, 'side')!.containerID });
    expect(statusOf(after, 'app')!.containerID).not.toBe(statusOf(before, 'app')!.containerID);
    expect(statusOf(after, 'app')!.lastState.terminated).toBeDefined();

    const containers = (await c.edge('edge-1').runtime.listContainers()).filter((x) => x.podUid === before.metadata.uid);
    expect(containers.map((x) => [x.name, x.attempt, x.image, x.state]).sort()).toEqual([
      ['app', 0, 'kedge.io/web:1', 'exited'],
      ['app', 1, 'kedge.io/web:2', 'running'],
      ['side', 0, 'kedge.io/side:1', 'running'],
    ]);

    const app = await runUntil(c.clock, async () => {
      const events = await eventsOf(c, 'app');
      return events.some((e) => e.reason === 'Killing') && events.some((e) => e.reason === 'Started' && (e.count ?? 1) >= 2) && events;
    }, 'the restart events');
    expect(app.find((e) => e.reason === 'Killing')?.message).toBe('Container app definition changed, will be restarted');
    expect(app.find((e) => e.reason === 'Pulling' && e.message?.includes('kedge.io/web:2'))?.message).toBe('Pulling image "kedge.io/web:2"');
    expect(app.find((e) => e.reason === 'Created')?.count).toBe(2);
    const side = await eventsOf(c, 'side');
    expect(side.find((e) => e.reason === 'Started')?.count ?? 1).toBe(1);
    expect(side.some((e) => e.reason === 'Killing')).toBe(false);
  });

  it('restarts it when an edge that was offline at the change comes back', async () => {
    cluster = await Cluster.start({ transport: 'memory', clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    await runningPod(c);
    c.cut('edge-1');
    await runUntil(c.clock, () => !c.cloud.hub.connectedNodes().includes('edge-1'), 'the hub to notice', { budgetMs: 2 * c.timing.keepaliveMs });
    await newImage(c);
    c.clock.advance(c.timing.nodeStatusIntervalMs);
    const held = await c.edge('edge-1').runtime.listContainers();
    expect(held.filter((x) => x.name === 'app').map((x) => x.image)).toEqual(['kedge.io/web:1']);

    c.heal('edge-1');
    await restarted(c);
    const cached = (await c.edgePods('edge-1')).find((p) => p.metadata.name === 'web');
    expect(cached?.spec.containers.map((x) => x.image)).toEqual(['kedge.io/web:2', 'kedge.io/side:1']);
  });
});
