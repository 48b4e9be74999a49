import { describe, expect, it } from 'vitest';
import type { Deployment } from '../../shared/apps-types.js';
import type { Node, Pod } from '../../shared/types.js';
import { judgeConnection, judgeDeployment, judgeNode, judgePods, judgeRejection, podPhase } from '../../sim/scenario/judge.js';
import { summarize } from '../../sim/scenario/timeline.js';
import type { PodsExpectation } from '../../sim/scenario/types.js';

interface PodShape {
  name: string;
  node?: string;
  phase?: 'Pending' | 'Running' | 'Failed';
  ready?: boolean;
  labels?: Record<string, string>;
  restarts?: number;
  deleting?: boolean;
  namespace?: string;
}

function pod(p: PodShape): Pod {
  return {
    metadata: { name: p.name, namespace: p.namespace ?? 'default', labels: p.labels ?? {}, ...(p.deleting && { deletionTimestamp: '2026-01-01T00:00:00Z' }) },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(p.node && { nodeName: p.node }) },
    status: {
      ...(p.phase && { phase: p.phase }),
      conditions: [{ type: 'Ready', status: p.ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'c', ready: Boolean(p.ready), restartCount: p.restarts ?? 0, image: 'i', imageID: '', state: {}, lastState: {} }],
    },
  };
}

const node = (name: string, ready: 'True' | 'False' | 'Unknown', taints: string[] = []): Node => ({
  metadata: { name },
  spec: { taints: taints.map((key) => ({ key, effect: 'NoExecute' as const })) },
  status: { conditions: [{ type: 'Ready', status: ready }] },
});

const pods = [
  pod({ name: 'web-1', node: 'edge-1', phase: 'Running', ready: true, labels: { app: 'web' } }),
  pod({ name: 'web-2', node: 'edge-1', phase: 'Running', ready: false, labels: { app: 'web' }, restarts: 2 }),
  pod({ name: 'web-3', node: 'edge-2', phase: 'Running', ready: true, labels: { app: 'web' }, deleting: true }),
  pod({ name: 'late', phase: 'Pending', labels: { app: 'late' } }),
  pod({ name: 'db', node: 'edge-2', phase: 'Failed', labels: { app: 'db' }, namespace: 'data' }),
];
const exactly = (n: number, e: Partial<PodsExpectation> = {}): PodsExpectation => ({ kind: 'pods', view: 'cloud', min: n, max: n, ...e });

describe('judging pods', () => {
  it('shows a pod being deleted as Terminating, and one without a phase as Pending', () => {
    expect(pods.map(podPhase)).toEqual(['Running', 'Running', 'Terminating', 'Pending', 'Failed']);
    expect(podPhase({ metadata: {}, spec: { containers: [] } })).toBe('Pending');
  });

  it.each([
    ['every pod', exactly(5), true],
    ['Running, Terminating excluded', exactly(2, { phase: 'Running' }), true],
    ['Running and ready', exactly(1, { phase: 'Running', ready: true }), true],
    ['not ready', exactly(3, { ready: false }), true],
    ['on a node', exactly(2, { node: 'edge-1' }), true],
    ['by selector', exactly(3, { selector: 'app=web' }), true],
    ['by set selector', exactly(4, { selector: 'app in (web,late)' }), true],
    ['unscheduled', exactly(1, { scheduled: false, phase: 'Pending' }), true],
    ['scheduled', exactly(4, { scheduled: true }), true],
    ['in a namespace', exactly(1, { namespace: 'data' }), true],
    ['restarted', exactly(1, { minRestarts: 1 }), true],
    ['never restarted', exactly(4, { maxRestarts: 0 }), true],
    ['a range that holds', { ...exactly(0), min: 1, max: 3, selector: 'app=web' }, true],
    ['too few', exactly(3, { phase: 'Running' }), false],
    ['too many', { ...exactly(0), max: 1, selector: 'app=web' }, false],
  ])('%s', (_, e, ok) => {
    expect(judgePods(e, pods).ok).toBe(ok);
  });

  it('says what it saw: the matching pods, or none among how many', () => {
    expect(judgePods(exactly(1, { node: 'edge-1', ready: true }), pods).seen).toBe('1 matching: web-1 Running, ready on edge-1');
    expect(judgePods(exactly(1, { selector: 'app=late' }), pods).seen).toBe('1 matching: late Pending on (no node)');
    expect(judgePods(exactly(0, { node: 'edge-9' }), pods)).toEqual({ ok: true, seen: 'no matching pod (of 5)' });
    const many = Array.from({ length: 8 }, (_, i) => pod({ name: `p${i}`, node: 'edge-1', phase: 'Running' }));
    expect(judgePods(exactly(8), many).seen).toMatch(/^8 matching: p0 Running on edge-1; .*p5 Running on edge-1; and 2 more$/);
  });
});

describe('judging nodes, deployments, connections and refusals', () => {
  it('compares the Ready condition and shows the taints', () => {
    expect(judgeNode({ kind: 'node', node: 'edge-1', ready: 'Unknown' }, node('edge-1', 'Unknown', ['node.kubernetes.io/unreachable']))).toEqual({
      ok: true,
      seen: 'Ready=Unknown, taints node.kubernetes.io/unreachable:NoExecute',
    });
    expect(judgeNode({ kind: 'node', node: 'edge-1', ready: 'True' }, node('edge-1', 'Unknown'))).toEqual({ ok: false, seen: 'Ready=Unknown' });
    expect(judgeNode({ kind: 'node', node: 'edge-4', ready: 'True' }, undefined)).toEqual({ ok: false, seen: 'no node edge-4' });
  });

  it('counts available replicas', () => {
    const d = (available?: number): Deployment => ({ metadata: { name: 'web' }, spec: { replicas: 3, selector: {}, template: { spec: { containers: [] } } }, status: { ...(available !== undefined && { availableReplicas: available }) } }) as Deployment;
    const e = { kind: 'deployment' as const, name: 'web', namespace: 'default', available: 3 };
    expect(judgeDeployment(e, d(3))).toEqual({ ok: true, seen: '3 available of 3 wanted' });
    expect(judgeDeployment(e, d())).toEqual({ ok: false, seen: '0 available of 3 wanted' });
    expect(judgeDeployment(e, undefined)).toEqual({ ok: false, seen: 'no deployment web' });
  });

  it("reads the edge's own view of its link", () => {
    const e = { kind: 'connection' as const, node: 'edge-1', connected: false };
    expect(judgeConnection(e, { connected: false, offlineSince: '2026-01-01T00:00:00.000Z', queued: 2 })).toEqual({ ok: true, seen: 'offline since 2026-01-01T00:00:00.000Z, 2 queued' });
    expect(judgeConnection(e, { connected: true, offlineSince: null, queued: 0 })).toEqual({ ok: false, seen: 'connected, 0 queued' });
  });

  it('holds for a refusal with the status asked (any status when none is)', () => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'late' } };
    const refused = { created: false as const, status: 503, message: 'the store is down' };
    expect(judgeRejection({ kind: 'rejected', object, status: 503 }, refused)).toEqual({ ok: true, seen: 'HTTP 503: the store is down' });
    expect(judgeRejection({ kind: 'rejected', object, status: 409 }, refused).ok).toBe(false);
    expect(judgeRejection({ kind: 'rejected', object }, refused).ok).toBe(true);
    expect(judgeRejection({ kind: 'rejected', object }, { created: true })).toEqual({ ok: false, seen: 'accepted (a dry run: nothing was stored)' });
  });
});

describe('timeline samples', () => {
  it("count Running pods per node in each view (kube-system's agents aside), and leave out what did not answer", () => {
    const agent = pod({ name: 'kube-proxy-a', node: 'edge-1', phase: 'Running' });
    agent.metadata.namespace = 'kube-system';
    const edgePods = [pods[0]!, pods[1]!, pod({ name: 'old', node: 'edge-1', phase: 'Running' }), agent];
    const glimpse = {
      cloud: { nodes: [node('edge-1', 'Unknown'), node('edge-2', 'True')], pods: [...pods, agent] },
      edges: new Map([
        ['edge-1', { pods: edgePods, connection: { connected: false, offlineSince: 'x', queued: 0 } }],
        ['edge-2', {}],
      ]),
    };
    expect(summarize(['edge-1', 'edge-2', 'edge-3'], glimpse)).toEqual({
      'edge-1': { ready: 'Unknown', cloudRunning: 2, edgeRunning: 3, connected: false },
      'edge-2': { ready: 'True', cloudRunning: 0 },
      'edge-3': { cloudRunning: 0 },
    });
    expect(summarize(['edge-1'], { edges: new Map() })).toEqual({ 'edge-1': {} });
  });
});
