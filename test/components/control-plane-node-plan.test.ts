import { describe, expect, it } from 'vitest';
import type { ComponentState } from '../../cloud/components/component.js';
import { agentDaemonSet } from '../../cloud/apiserver/kinds/agent-daemonsets.js';
import { mirrorPodStatus } from '../../cloud/control-plane-node/mirror-status.js';
import { nodeAddress } from '../../cloud/control-plane-node/node-address.js';
import { planMirrorPods } from '../../cloud/control-plane-node/plan.js';
import { mirrorPod, staticPods, type MirrorNode } from '../../cloud/control-plane-node/static-pods.js';
import type { Pod } from '../../shared/types.js';

const node: MirrorNode = { name: 'Kedge-CP', uid: 'node-uid', address: '127.0.0.1' };
const process = { bootId: 'boot1', startedAt: Date.parse('2026-01-01T00:00:00Z') };
const at = (s: number): string => new Date(process.startedAt + s * 1000).toISOString();
const state = (name: string, running: boolean, sinceS: number): ComponentState => ({ name, running, healthy: running, stoppable: true, since: at(sinceS), message: running ? 'ok' : 'stopped' });
const manifest = (name: string) => staticPods(true).find((m) => m.name === name)!;

describe('static pods', () => {
  it("are kubeadm's four plus the hub, whose pod holds the embedded broker as a second container", () => {
    expect(staticPods(true).map((m) => [m.name, m.containers.map((c) => `${c.name}=${c.component}`)])).toEqual([
      ['etcd', ['etcd=store']],
      ['kube-apiserver', ['kube-apiserver=apiserver']],
      ['kube-controller-manager', ['kube-controller-manager=controller-manager']],
      ['kube-scheduler', ['kube-scheduler=scheduler']],
      ['kedge-hub', ['kedge-hub=hub', 'broker=broker']],
    ]);
    expect(staticPods(false).find((m) => m.name === 'kedge-hub')!.containers.map((c) => c.name)).toEqual(['kedge-hub']);
  });

  it('mirror as the kubelet makes them: <manifest>-<node>, config annotations, owned by the Node, kubeadm labels', () => {
    const pod = mirrorPod(manifest('etcd'), node, process.startedAt);
    expect(pod.metadata).toMatchObject({ name: 'etcd-kedge-cp', namespace: 'kube-system', labels: { component: 'etcd', tier: 'control-plane' } });
    const annotations = pod.metadata.annotations!;
    expect(annotations['kubernetes.io/config.mirror']).toMatch(/^[0-9a-f]{32}$/);
    expect(annotations).toMatchObject({ 'kubernetes.io/config.hash': annotations['kubernetes.io/config.mirror'], 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': at(0) });
    expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'Kedge-CP', uid: 'node-uid', controller: true }]);
    expect(pod.spec).toMatchObject({ nodeName: 'Kedge-CP', hostNetwork: true, priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] });
    expect(mirrorPod(manifest('kedge-hub'), node, 0).metadata.annotations).toMatchObject({ 'kubectl.kubernetes.io/default-container': 'kedge-hub' });
    expect(mirrorPod(manifest('etcd'), { ...node, name: 'other' }, 0).metadata.annotations!['kubernetes.io/config.hash']).not.toBe(annotations['kubernetes.io/config.hash']);
  });
});

describe('mirror pod status from component states', () => {
  const statusOf = (name: string, states: ComponentState[]) => mirrorPodStatus(manifest(name), node, new Map(states.map((s) => [s.name, s])), process);
  const condition = (status: ReturnType<typeof statusOf>, type: string) => status.conditions!.find((c) => c.type === type);

  it('is Running and Ready while the component runs, on the node address', () => {
    const status = statusOf('kube-scheduler', [state('scheduler', true, 5)]);
    expect(status).toMatchObject({ phase: 'Running', podIP: '127.0.0.1', hostIP: '127.0.0.1', startTime: at(0) });
    expect(status.containerStatuses).toEqual([expect.objectContaining({ name: 'kube-scheduler', ready: true, restartCount: 0, containerID: 'kedge://boot1/kube-scheduler', state: { running: { startedAt: at(0) } } })]);
    expect(condition(status, 'Ready')).toMatchObject({ status: 'True', lastTransitionTime: at(5) });
  });

  it('is still Running but not ready while the component is stopped, naming the container', () => {
    const status = statusOf('kube-scheduler', [state('scheduler', false, 30)]);
    expect(status.phase).toBe('Running');
    expect(status.containerStatuses![0]).toMatchObject({ ready: false, state: { running: {} } });
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [kube-scheduler]', lastTransitionTime: at(30) });
    expect(condition(status, 'ContainersReady')).toMatchObject({ status: 'False' });
  });

  it('counts each container of the hub pod: a stopped broker makes it 1/2', () => {
    const status = statusOf('kedge-hub', [state('hub', true, 0), state('broker', false, 9)]);
    expect(status.containerStatuses!.map((c) => [c.name, c.ready])).toEqual([['kedge-hub', true], ['broker', false]]);
    expect(condition(status, 'Ready')).toMatchObject({ status: 'False', message: 'containers with unready status: [broker]' });
  });

  it('is the same for the same states (nothing to write)', () => {
    expect(statusOf('etcd', [state('store', true, 1)])).toEqual(statusOf('etcd', [state('store', true, 1)]));
  });
});

describe('planMirrorPods', () => {
  const want = (name: string, states: ComponentState[], uid = 'node-uid'): Pod => {
    const nodeOf = { ...node, uid };
    return { ...mirrorPod(manifest(name), nodeOf, 0), status: mirrorPodStatus(manifest(name), nodeOf, new Map(states.map((s) => [s.name, s])), process) };
  };
  const stored = (pod: Pod, extra: Partial<Pod['metadata']> = {}): Pod => ({ ...pod, metadata: { ...pod.metadata, uid: `uid-${pod.metadata.name}`, resourceVersion: '7', ...extra } });
  const up = [state('scheduler', true, 0)];
  const down = [state('scheduler', false, 9)];

  it.each([
    ['creates a missing mirror pod', [want('kube-scheduler', up)], [], ['create kube-scheduler-kedge-cp']],
    ['does nothing when all is as wanted', [want('kube-scheduler', up)], [stored(want('kube-scheduler', up))], []],
    ['writes the status when the component changed', [want('kube-scheduler', down)], [stored(want('kube-scheduler', up))], ['status kube-scheduler-kedge-cp']],
    ['removes one being deleted (it comes back on a later pass)', [want('kube-scheduler', up)], [stored(want('kube-scheduler', up), { deletionTimestamp: at(3) })], ['delete kube-scheduler-kedge-cp']],
    ['removes one owned by an older Node', [want('kube-scheduler', up)], [stored(want('kube-scheduler', up, 'old-uid'))], ['delete kube-scheduler-kedge-cp']],
    ['removes a mirror pod no static pod wants', [], [stored(want('kube-scheduler', up))], ['delete kube-scheduler-kedge-cp']],
  ] as const)('%s', (_what, desired, actual, expected) => {
    const actions = planMirrorPods(desired, actual);
    expect(actions.map((a) => `${a.type} ${a.type === 'delete' ? a.name : a.pod.metadata.name}`)).toEqual(expected);
  });

  it('keeps the stored resourceVersion on a status write (compare-and-set)', () => {
    const [action] = planMirrorPods([want('kube-scheduler', down)], [stored(want('kube-scheduler', up))]);
    expect(action).toMatchObject({ type: 'status', pod: { metadata: { resourceVersion: '7' }, status: { conditions: expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'False' })]) } } });
  });
});

describe('nodeAddress', () => {
  const eth0 = { eth0: [{ address: '10.0.0.5', family: 'IPv4', internal: false, netmask: '', mac: '', cidr: null }] } as unknown as NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;
  it.each([
    ['127.0.0.1', {}, '127.0.0.1'],
    ['localhost', eth0, '127.0.0.1'],
    ['192.168.1.9', eth0, '192.168.1.9'],
    ['0.0.0.0', eth0, '10.0.0.5'],
    ['0.0.0.0', {}, '127.0.0.1'],
  ] as const)('serving on %s: %s', (host, interfaces, expected) => {
    expect(nodeAddress(host, interfaces)).toBe(expected);
  });
});

describe('agentDaemonSet', () => {
  it('runs one kedge-agent container of its name on every node network, with no toleration of its own', () => {
    expect(agentDaemonSet('kube-proxy')).toEqual({
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', labels: { 'k8s-app': 'kube-proxy' } },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        template: { metadata: { labels: { 'k8s-app': 'kube-proxy' } }, spec: { hostNetwork: true, runtimeClassName: 'kedge-agent', containers: [{ name: 'kube-proxy', image: 'kedge/kube-proxy' }] } },
      },
    });
  });
});
