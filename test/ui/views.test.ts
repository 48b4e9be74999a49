import { describe, expect, it } from 'vitest';
import { componentRow } from '../../ui/model/component-rows.js';
import { edgeOwnView } from '../../ui/model/edge-view.js';
import { duration, secondsSince } from '../../ui/model/format.js';
import type { EdgeSummary, Node, Pod } from '../../ui/model/kube.js';
import { cloudNodeView } from '../../ui/model/node-view.js';
import { podRow, podsOn } from '../../ui/model/pod-rows.js';
import { timeline } from '../../ui/model/timeline.js';

const NOW = Date.parse('2025-01-01T00:01:00.000Z');

describe("the cloud's view of a node", () => {
  const node = (status: string, extra: Partial<Node> = {}): Node => ({
    metadata: { name: 'edge-2' },
    status: { conditions: [{ type: 'Ready', status, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: '2025-01-01T00:00:50.000Z' }] },
    ...extra,
  });

  it.each([
    ['True', 'Ready'],
    ['False', 'NotReady'],
    ['Unknown', 'Unknown'],
  ])('reads Ready=%s as %s', (status, readiness) => {
    expect(cloudNodeView(node(status), NOW).readiness).toBe(readiness);
  });

  it('shows the reason, the taints and how long ago the last heartbeat was', () => {
    const view = cloudNodeView(node('Unknown', { spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }, { key: 'team', value: 'a', effect: 'NoSchedule' }] } }), NOW);
    expect(view).toEqual({
      name: 'edge-2',
      readiness: 'Unknown',
      reason: 'NodeStatusUnknown: Kubelet stopped posting node status.',
      taints: ['node.kubernetes.io/unreachable:NoExecute', 'team=a:NoSchedule'],
      lastHeartbeat: '2025-01-01T00:00:50.000Z',
      heartbeatAgeSeconds: 10,
      unschedulable: false,
    });
  });

  it("takes the last heartbeat from the node's Lease when it was renewed after the Ready condition's heartbeat time", () => {
    const lease = { metadata: { name: 'edge-2' }, spec: { renewTime: '2025-01-01T00:00:58.000000Z' } };
    expect(cloudNodeView(node('True'), NOW, lease)).toMatchObject({ lastHeartbeat: '2025-01-01T00:00:58.000000Z', heartbeatAgeSeconds: 2 });
    const older = { metadata: { name: 'edge-2' }, spec: { renewTime: '2025-01-01T00:00:40.000000Z' } };
    expect(cloudNodeView(node('True'), NOW, older)).toMatchObject({ lastHeartbeat: '2025-01-01T00:00:50.000Z', heartbeatAgeSeconds: 10 });
  });

  it('is Unknown before the node reported anything', () => {
    expect(cloudNodeView({ metadata: { name: 'edge-9' } }, NOW)).toMatchObject({ readiness: 'Unknown', reason: 'no Ready condition yet', taints: [] });
  });
});

describe('pod rows', () => {
  const pod = (name: string, nodeName: string | undefined, extra: Partial<Pod> = {}): Pod => ({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'a' }, { name: 'b' }] },
    status: { phase: 'Running', containerStatuses: [{ name: 'a', ready: true, restartCount: 2 }, { name: 'b', ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    ...extra,
  });

  it("show kubectl get pods' READY and STATUS, and the restarts", () => {
    expect(podRow(pod('web', 'edge-1'))).toEqual({ key: 'uid-web', namespace: 'default', name: 'web', node: 'edge-1', phase: 'Running', status: 'CrashLoopBackOff', ready: '1/2', restarts: 3 });
    expect(podRow(pod('gone', 'edge-1', { metadata: { name: 'gone', deletionTimestamp: '2025-01-01T00:00:00Z' } })).status).toBe('Terminating');
    expect(podRow({ metadata: { name: 'new' } })).toMatchObject({ phase: 'Pending', status: 'Pending', ready: '0/0', restarts: 0 });
  });

  it('list the volumes each container mounts, as its status reports them', () => {
    const mounted = pod('sensor', 'edge-1', {
      status: { containerStatuses: [{ name: 'sensor', ready: true, restartCount: 0, volumeMounts: [{ name: 'config', mountPath: '/etc/sensor', readOnly: true }, { name: 'data', mountPath: '/data' }] }] },
    });
    expect(podRow(mounted).mounts).toEqual(['sensor: /etc/sensor (config, read-only)', 'sensor: /data (data)']);
    expect(podRow(pod('web', 'edge-1'))).not.toHaveProperty('mounts');
  });

  it('agree on readiness when the cloud marked the pod not Ready (its node unreachable): READY and STATUS as kubectl prints them', () => {
    const marked: Pod = {
      metadata: { name: 'cut-off' },
      spec: { containers: [{ name: 'a' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: { running: {} } }] },
    };
    const row = podRow(marked);
    expect(row).toMatchObject({ ready: '1/1', status: 'Running' });
    expect(JSON.stringify(row)).not.toMatch(/not ready/i);
  });

  it('group by node, in name order; undefined picks the pods not placed yet', () => {
    const pods = [pod('b', 'edge-1'), pod('a', 'edge-1'), pod('c', 'edge-2'), pod('d', undefined)];
    expect(podsOn(pods, 'edge-1').map((r) => r.name)).toEqual(['a', 'b']);
    expect(podsOn(pods, undefined).map((r) => r.name)).toEqual(['d']);
  });
});

describe("an edge's own view", () => {
  const summary: EdgeSummary = { name: 'edge-2', process: 'running', localApiUrl: 'http://127.0.0.1:10552', link: 'cut' };
  const runningPod: Pod = { metadata: { name: 'hello', namespace: 'default' }, status: { phase: 'Running' } };
  const heard = { lastHeardFromBroker: null, silentForSeconds: null, keepaliveSeconds: 60 };

  it('says since when and for how long it is offline, and what it still runs', () => {
    const view = edgeOwnView('edge-2', summary, { name: 'edge-2', process: 'running', connection: { connected: false, offlineSince: '2025-01-01T00:00:45.000Z', queued: 3, ...heard }, pods: [runningPod] }, NOW);
    expect(view).toMatchObject({ connection: 'offline', queued: 3, link: 'cut', process: 'running' });
    expect(view.summary).toMatch(/^offline since \d\d:\d\d:\d\d \(for 15 s\)$/);
    expect(view.pods!.map((p) => [p.name, p.phase])).toEqual([['hello', 'Running']]);
  });

  it('is connected, down (with the reason) or not known yet', () => {
    expect(edgeOwnView('edge-2', summary, { name: 'edge-2', process: 'running', connection: { connected: true, offlineSince: null, queued: 0, ...heard }, pods: [] }, NOW).connection).toBe('connected');
    const down = edgeOwnView('edge-2', summary, { name: 'edge-2', process: 'exited', connection: null, pods: null, message: 'edge process down: it exited' }, NOW);
    expect(down).toMatchObject({ connection: 'down', summary: 'edge process down: it exited', pods: null, process: 'exited' });
    expect(edgeOwnView('edge-2', undefined, undefined, NOW)).toMatchObject({ connection: 'unknown', link: 'unknown', pods: null });
  });
});

describe('the event timeline', () => {
  it('lists the newest first, bounded, with the object and the count', () => {
    const events = [1, 3, 2].map((s) => ({
      metadata: { name: `e${s}`, namespace: 'default', uid: `u${s}` },
      involvedObject: { kind: 'Pod', namespace: 'default', name: `p${s}` },
      reason: 'Started', message: 'Started container', type: s === 3 ? 'Warning' : undefined, count: s,
      lastTimestamp: `2025-01-01T00:00:0${s}Z`,
    }));
    expect(timeline(events, 2)).toEqual([
      { key: 'u3', time: '2025-01-01T00:00:03Z', type: 'Warning', object: 'Pod default/p3', reason: 'Started', message: 'Started container', count: 3 },
      { key: 'u2', time: '2025-01-01T00:00:02Z', type: 'Normal', object: 'Pod default/p2', reason: 'Started', message: 'Started container', count: 2 },
    ]);
  });
});

describe('component rows', () => {
  it('say up, down or unhealthy in words, and whether they can be stopped', () => {
    const base = { name: 'hub', since: '2025-01-01T00:00:00Z', message: 'ok', stoppable: true };
    expect(componentRow({ ...base, running: true, healthy: true, stoppable: false })).toMatchObject({ condition: 'up', message: '', stoppable: false });
    expect(componentRow({ ...base, running: true, healthy: false, message: 'not connected to the broker' })).toMatchObject({ condition: 'unhealthy', message: 'not connected to the broker', stoppable: true });
    expect(componentRow({ ...base, name: 'deployment', parent: 'controller-manager', running: false, healthy: false, message: 'stopped' })).toMatchObject({ condition: 'down', parent: 'controller-manager' });
  });
});

describe('durations', () => {
  it.each([
    [4, '4 s'],
    [125, '2 min 5 s'],
    [300, '5 min'],
    [3780, '1 h 3 min'],
  ])('%i s reads "%s"', (s, text) => expect(duration(s)).toBe(text));

  it('counts whole seconds since a time, never negative', () => {
    expect(secondsSince('2025-01-01T00:00:58.500Z', NOW)).toBe(1);
    expect(secondsSince('2025-01-01T00:02:00Z', NOW)).toBe(0);
    expect(secondsSince(undefined, NOW)).toBeUndefined();
  });
});
