import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localApiTokenPath } from '../../edge/local-api-token.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { FakeComponent } from '../edge/fake-component.js';
import { eventually } from '../support/eventually.js';

const agentPod = (name: string, image: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { nodeName: 'edge-1', hostNetwork: true, runtimeClassName: 'kedge-agent', containers: [{ name: 'agent', image }] },
});

/** A pod of runtimeClassName kedge-agent stands for one of the edge's components: Ready while it runs, whatever the cloud. */
describe('kedge-agent pods on an edge', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('run at once on the node address; turn unready when the component is stopped through the local API, ready when started', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    const edge = c.edge('edge-1');
    edge.components.push(new FakeComponent('kube-proxy', c.clock));
    const ref = { resource: 'pods', namespace: 'default', name: 'kube-proxy-a' };
    await c.api.create(ref, agentPod('kube-proxy-a', 'kedge/kube-proxy'));
    const ready = (want: boolean) => async () => {
      const pod = await c.api.get<Pod>(ref);
      return pod.status?.conditions?.find((x) => x.type === 'Ready')?.status === (want ? 'True' : 'False') && pod;
    };
    const running = await eventually(c.clock, ready(true), 'the agent pod Ready');
    expect(running.status).toMatchObject({ phase: 'Running', podIP: '127.0.0.1' });
    expect(running.status!.containerStatuses![0]!.containerID).toMatch(/^kedge-agent:\/\/[0-9a-f]{32}$/);

    const token = (await readFile(localApiTokenPath(join(c.dir, 'edges', 'edge-1')), 'utf8')).trim();
    const act = (action: string) => fetch(`${edge.localApiUrl}/components/kube-proxy/${action}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect((await act('stop')).status).toBe(200);
    const stopped = await eventually(c.clock, ready(false), 'the agent pod not Ready');
    expect(stopped.status!.containerStatuses![0]).toMatchObject({ ready: false, restartCount: 0, state: { running: {} } });
    expect((await act('start')).status).toBe(200);
    await eventually(c.clock, ready(true), 'the agent pod Ready again');
  });

  it('an image naming no component of the edge waits in ErrImagePull, saying which it has', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    const c = cluster;
    c.edge('edge-1').components.push(new FakeComponent('kube-proxy', c.clock));
    const ref = { resource: 'pods', namespace: 'default', name: 'etcd-a' };
    await c.api.create(ref, agentPod('etcd-a', 'kedge/etcd'));
    const waiting = await eventually(c.clock, async () => (await c.api.get<Pod>(ref)).status?.containerStatuses?.[0]?.state.waiting?.reason === 'ErrImagePull' && c.api.get<Pod>(ref), 'ErrImagePull');
    expect(waiting.status!.containerStatuses![0]!.state.waiting).toEqual({ reason: 'ErrImagePull', message: 'no built-in component "etcd" on this edge (it has kedge-cni, kube-proxy)' });
    expect(waiting.status!.phase).toBe('Pending');
  });
});
