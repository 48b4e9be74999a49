import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import type { Lease } from '../../shared/config-types.js';
import type { Node, Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const NODE = 'kedge-control-plane';
const MIRRORS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kedge-hub'].map((m) => `${m}-${NODE}`);
const podRef = (name: string) => ({ resource: 'pods', namespace: 'kube-system', name });
const ready = (pod: Pod | undefined): boolean | undefined => pod?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

/** The cloud as its own control-plane node (`kedge cloud` does this; the in-process cluster when asked). */
describe('the control-plane node', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  const kubeSystemPods = async (c: Cluster<FakeClock>): Promise<Map<string, Pod>> =>
    new Map((await c.api.list<Pod>({ resource: 'pods', namespace: 'kube-system' })).items.map((p) => [p.metadata.name!, p]));

  it('registers the cloud as a Ready, tainted control-plane node with a Lease, and keeps it Ready', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, controlPlaneNode: NODE });
    const c = cluster;
    const node = await c.api.get<Node>({ resource: 'nodes', name: NODE });
    expect(node.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux' });
    expect(node.spec?.taints).toEqual([{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    expect(node.status?.addresses).toEqual([{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: NODE }]);
    expect(node.status?.nodeInfo).toMatchObject({ kubeletVersion: 'v1.32.4-kedge', containerRuntimeVersion: 'kedge://0.1.0' });

    // Far past the grace period: the node-lifecycle controller never finds it silent.
    await pass(c.clock, 3 * c.timing.nodeMonitorGraceMs, 1_000);
    const later = await c.api.get<Node>({ resource: 'nodes', name: NODE });
    expect(later.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    expect(later.spec?.taints).toEqual(node.spec?.taints);
    const lease = await c.api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease', name: NODE });
    expect(Date.parse(lease.spec!.renewTime!)).toBeGreaterThan(c.clock.now() - c.timing.nodeStatusIntervalMs - 1);
    expect(lease.spec).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: 40 });
  });

  it('keeps a mirror pod per component, ready while it runs, not ready while stopped, and brings back a deleted one', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, controlPlaneNode: NODE });
    const c = cluster;
    const node = await c.api.get<Node>({ resource: 'nodes', name: NODE });
    const pods = await runUntil(c.clock, async () => {
      const found = await kubeSystemPods(c);
      return MIRRORS.every((m) => ready(found.get(m))) && found;
    }, 'every mirror pod Ready');
    expect([...pods.keys()].sort()).toEqual([...MIRRORS].sort());
    const scheduler = pods.get(`kube-scheduler-${NODE}`)!;
    expect(scheduler.metadata.labels).toEqual({ component: 'kube-scheduler', tier: 'control-plane' });
    expect(scheduler.metadata.annotations).toMatchObject({ 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.mirror': scheduler.metadata.annotations!['kubernetes.io/config.hash'] });
    expect(scheduler.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata.uid, controller: true }]);
    expect(scheduler.spec).toMatchObject({ nodeName: NODE, hostNetwork: true, priorityClassName: 'system-node-critical' });
    expect(scheduler.status).toMatchObject({ phase: 'Running', podIP: '127.0.0.1', hostIP: '127.0.0.1' });
    expect(pods.get(`kedge-hub-${NODE}`)!.spec.containers.map((x) => x.name)).toEqual(['kedge-hub', 'broker']);

    // Nothing changes: nothing is written.
    await pass(c.clock, 3 * c.timing.nodeStatusIntervalMs, 1_000);
    expect((await c.api.get<Pod>(podRef(`kube-scheduler-${NODE}`))).metadata.resourceVersion).toBe(scheduler.metadata.resourceVersion);

    await c.cloud.components.stop('scheduler');
    const stopped = await runUntil(c.clock, async () => {
      const pod = await c.api.get<Pod>(podRef(`kube-scheduler-${NODE}`));
      return ready(pod) === false && pod;
    }, 'kube-scheduler not ready');
    expect(stopped.status?.phase).toBe('Running');
    expect(stopped.status?.containerStatuses?.[0]).toMatchObject({ name: 'kube-scheduler', ready: false, state: { running: {} } });
    expect(stopped.status?.conditions?.find((x) => x.type === 'Ready')).toMatchObject({ reason: 'ContainersNotReady', message: 'containers with unready status: [kube-scheduler]' });
    expect(ready(await c.api.get<Pod>(podRef(`kube-controller-manager-${NODE}`)))).toBe(true);
    await c.cloud.components.start('scheduler');
    await runUntil(c.clock, async () => ready(await c.api.get<Pod>(podRef(`kube-scheduler-${NODE}`))), 'kube-scheduler ready again');

    await c.api.delete(podRef(`etcd-${NODE}`));
    const back = await runUntil(c.clock, async () => {
      const pod = (await kubeSystemPods(c)).get(`etcd-${NODE}`);
      return pod && pod.metadata.uid !== pods.get(`etcd-${NODE}`)!.metadata.uid && ready(pod) && pod;
    }, 'etcd mirror pod re-created');
    expect(back.metadata.deletionTimestamp).toBeUndefined();
  });

  it('keeps writing its mirror pods\' status when a pod of the same name appears in another namespace', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, controlPlaneNode: NODE });
    const c = cluster;
    const real = await runUntil(c.clock, async () => {
      const pod = (await kubeSystemPods(c)).get(`kube-scheduler-${NODE}`);
      return ready(pod) && pod;
    }, 'kube-scheduler ready');
    const { name, labels, annotations } = real.metadata;
    await c.api.create({ resource: 'pods', namespace: 'default' }, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, annotations }, spec: real.spec });
    await pass(c.clock, 2 * c.timing.nodeStatusIntervalMs, 1_000);
    await c.cloud.components.stop('scheduler');
    await runUntil(c.clock, async () => ready(await c.api.get<Pod>(podRef(`kube-scheduler-${NODE}`))) === false, 'the real kube-scheduler mirror pod not ready');
    expect(ready(await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name }))).toBeFalsy();
  });

  it('sends nothing to any edge for the mirror pods, and schedules nothing onto the control-plane node', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, controlPlaneNode: NODE });
    const c = cluster;
    await runUntil(c.clock, async () => (await kubeSystemPods(c)).size === MIRRORS.length, 'mirror pods');
    const web: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'kedge.io/web:1' }] } };
    await c.api.create({ resource: 'pods', namespace: 'default' }, web);
    const placed = await runUntil(c.clock, async () => (await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' })).status?.phase === 'Running' && (await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' })), 'web Running');
    expect(placed.spec.nodeName).toBe('edge-1');
    expect((await c.edgePods('edge-1')).map((p) => p.metadata.name)).toEqual(['web']);
    expect(c.cloud.hub.connectedNodes()).toEqual(['edge-1']);
  });

  it("serves each mirror pod's log from the cloud's own log, and keeps following it", async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1, controlPlaneNode: NODE });
    const c = cluster;
    await runUntil(c.clock, async () => (await kubeSystemPods(c)).size === MIRRORS.length, 'mirror pods');
    const url = (pod: string, query = ''): string => `${c.cloud.apiUrl.replace(/^https:/, 'http:')}/api/v1/namespaces/kube-system/pods/${pod}/log${query}`;
    const headers = { authorization: `Bearer ${c.cloud.credentials.admin}` };
    const scheduler = await (await fetch(url(`kube-scheduler-${NODE}`), { headers })).text();
    expect(scheduler).toMatch(/INFO {2}\[components\] component started \{"component":"scheduler"\}\n/);
    expect(scheduler).not.toMatch(/"component":"hub"|\[hub/);
    expect(await (await fetch(url(`kedge-hub-${NODE}`, '?container=kedge-hub'), { headers })).text()).toMatch(/\[hub\/hub\] cloud hub started/);

    const abort = new AbortController();
    const res = await fetch(url(`kube-scheduler-${NODE}`, '?follow=true&tailLines=0'), { headers, signal: abort.signal });
    let followed = '';
    const reading = (async () => {
      for await (const part of res.body!) followed += Buffer.from(part as Uint8Array).toString();
    })().catch(() => undefined);
    await c.cloud.components.stop('scheduler');
    await runUntil(c.clock, () => followed.includes('component stopped {"component":"scheduler"}'), 'the followed log to show the stop');
    await c.cloud.components.start('scheduler');
    await runUntil(c.clock, () => followed.includes('component started {"component":"scheduler"}'), 'and the start after it');
    abort.abort();
    await reading;
  });

  it('is off unless asked: the in-process cluster has only its edges', async () => {
    cluster = await Cluster.start({ clock: new FakeClock(), nodes: 1 });
    await pass(cluster.clock, 2_000, 500);
    expect((await cluster.api.list<Node>({ resource: 'nodes' })).items.map((n) => n.metadata.name)).toEqual(['edge-1']);
    expect((await cluster.api.list<Pod>({ resource: 'pods', namespace: 'kube-system' })).items).toEqual([]);
  });
});
