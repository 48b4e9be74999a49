import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/free-port.js';

const podRef = (name: string) => ({ resource: 'pods', namespace: 'default', name });
const simPod = (name: string, nodeName: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'main', image: 'kedge.io/hello:1.0' }] },
});
/** A process pod that serves HTTP on its own pod address (from the downward API), probed there. */
const serverPod = (name: string, nodeName: string, port: number): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: {
    nodeName, runtimeClassName: 'process',
    containers: [{
      name: 'main', image: 'node',
      command: [process.execPath, '-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, process.env.POD_IP)`],
      env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
      readinessProbe: { httpGet: { path: '/', port }, periodSeconds: 1 },
    }],
  },
});

describe('pod addresses from the node podCIDR', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const running = (c: Cluster<FakeClock>, name: string) =>
    eventually(c.clock, async () => {
      const pod = await c.api.get<Pod>(podRef(name));
      return pod.status?.phase === 'Running' && pod.status.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') && pod;
    }, `${name} Running and Ready`, { wallTimeoutMs: 15_000 });

  /** The Node's podCIDR: the one node IPAM assigned, else one set here; in the edge's cache as the hub's Node sync delivers it (applying it twice is a no-op). */
  async function nodePodCIDR(c: Cluster<FakeClock>, node: string, otherwise: string): Promise<string> {
    let object = await c.api.get<Node>({ resource: 'nodes', name: node });
    if (!object.spec?.podCIDR) object = await c.api.patch<Node>({ resource: 'nodes', name: node }, { spec: { podCIDR: otherwise, podCIDRs: [otherwise] } }, 'merge');
    const { uid = '', resourceVersion } = object.metadata;
    c.edge(node).cache.apply({ kind: 'Node', name: node, uid, ...(resourceVersion ? { resourceVersion } : {}) }, object);
    return object.spec!.podCIDR!;
  }

  it("gives each node's pods addresses of its own range, a process pod serves on its own, and the Node's podCIDR is used once the edge has it", async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 });
    const c = cluster;
    await c.api.create(podRef('a'), simPod('a', 'edge-1'));
    await c.api.create(podRef('b'), simPod('b', 'edge-2'));
    const [a, b] = [await running(c, 'a'), await running(c, 'b')];
    // The first pod of each node: .2 of its range (each edge's --pod-cidr while the cloud assigns none), one range per node.
    const rangeOf = (ip = '') => ip.replace(/\.\d+$/, '');
    expect([a.status!.podIP, b.status!.podIP]).toEqual([`${rangeOf(a.status!.podIP)}.2`, `${rangeOf(b.status!.podIP)}.2`]);
    expect(rangeOf(a.status!.podIP)).not.toBe(rangeOf(b.status!.podIP));

    const cidr = await nodePodCIDR(c, 'edge-1', '127.64.9.0/24');
    const base = cidr.replace(/\.0\/24$/, '');
    await c.api.create(podRef('c'), simPod('c', 'edge-1'));
    const podC = await running(c, 'c');
    expect(rangeOf(podC.status!.podIP)).toBe(base);
    expect((await c.api.get<Pod>(podRef('a'))).status!.podIP).toBe(a.status!.podIP); // kept until it goes

    const port = await freePort();
    await c.api.create(podRef('web'), serverPod('web', 'edge-1', port));
    const web = await running(c, 'web'); // Ready: the kubelet's probe reached it on its pod IP
    expect(rangeOf(web.status!.podIP)).toBe(base);
    expect(web.status!.podIP).not.toBe(podC.status!.podIP);
    expect(await (await fetch(`http://${web.status!.podIP}:${port}/`)).text()).toBe('ok');

    const sandbox = (await c.edge('edge-1').runtime.listSandboxes()).find((s) => s.podUid === web.metadata.uid)!;
    expect(await c.edge('edge-1').network.check({ containerId: sandbox.id })).toEqual({ ip: web.status!.podIP, cidr });
    await c.api.delete(podRef('web'));
    const released = () => c.edge('edge-1').network.check({ containerId: sandbox.id }).then(() => false, (err: Error) => err.message);
    expect(await eventually(c.clock, released, 'its address released (DEL)', { wallTimeoutMs: 15_000 })).toMatch(/no IP address is recorded/);
  });
});
