import { describe, expect, it } from 'vitest';
import { observeProbe, type NodeProbe } from '../../../cloud/controllers/node-lifecycle/heartbeat.js';
import { planNodeHealth, readyIsControllerVerdict, type NodeHealthAction } from '../../../cloud/controllers/node-lifecycle/node-health.js';
import { planPodsNotReady } from '../../../cloud/controllers/node-lifecycle/pods-not-ready.js';
import { defaultTiming, scaleTiming } from '../../../shared/timing.js';
import type { Node, NodeCondition, Taint } from '../../../shared/types.js';
import { iso, nodeWith, notReady, podOn, readyCondition, S, T0, unreachable } from './builders.js';

const probe = (lastReady: NodeProbe['lastReady'] | 'never' = 'True', probeTime = T0): NodeProbe => ({ heartbeat: iso(T0), probeTime, lastReady: lastReady === 'never' ? undefined : lastReady });
const taintsOf = (actions: NodeHealthAction[]): Taint[] | undefined => actions.flatMap((a) => (a.type === 'writeTaints' ? [a.taints] : []))[0];
const conditionsOf = (actions: NodeHealthAction[]): NodeCondition[] | undefined => actions.flatMap((a) => (a.type === 'writeConditions' ? [a.conditions] : []))[0];
const reasonsOf = (actions: NodeHealthAction[]): string[] => actions.flatMap((a) => (a.type === 'event' ? [a.reason] : []));
const userTaint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('planNodeHealth', () => {
  const cases: { name: string; node: Node; probe: NodeProbe; now: number; ready: string | undefined; taints: Taint[] | undefined; unknown: boolean; events: string[] }[] = [
    { name: 'silent 39.9 s: nothing yet', node: nodeWith(), probe: probe(), now: T0 + 39_900, ready: 'True', taints: undefined, unknown: false, events: [] },
    { name: 'silent exactly 40 s: not past the grace period', node: nodeWith(), probe: probe(), now: T0 + 40 * S, ready: 'True', taints: undefined, unknown: false, events: [] },
    {
      name: 'silent 40.1 s: Unknown, unreachable NoExecute + NoSchedule, NodeNotReady',
      node: nodeWith({ taints: [userTaint] }), probe: probe(), now: T0 + 40_100, ready: 'Unknown', unknown: true, events: ['NodeNotReady'],
      taints: [userTaint, unreachable(T0 + 40_100), unreachable(0, 'NoSchedule')],
    },
    {
      name: 'reports Ready=False: not-ready taints',
      node: nodeWith({ ready: 'False' }), probe: probe('True', T0 + 10 * S), now: T0 + 12 * S, ready: 'False', unknown: false, events: ['NodeNotReady'],
      taints: [notReady(T0 + 12 * S), notReady(0, 'NoSchedule')],
    },
    {
      name: 'from Unknown to False: unreachable swapped for not-ready',
      node: nodeWith({ ready: 'False', taints: [unreachable(T0), unreachable(0, 'NoSchedule')] }), probe: probe('Unknown', T0 + 50 * S), now: T0 + 51 * S, ready: 'False', unknown: false, events: [],
      taints: [notReady(T0 + 51 * S), notReady(0, 'NoSchedule')],
    },
    {
      name: 'Ready=True again: readiness taints removed, others kept, NodeReady',
      node: nodeWith({ taints: [unreachable(T0), userTaint, unreachable(0, 'NoSchedule'), notReady(T0)] }), probe: probe('Unknown', T0 + 60 * S), now: T0 + 61 * S, ready: 'True', unknown: false, events: ['NodeReady'],
      taints: [userTaint],
    },
    { name: 'already Unknown and tainted: nothing to do', node: nodeWith({ ready: 'Unknown', taints: [unreachable(T0 - 5 * S), unreachable(0, 'NoSchedule')], conditions: ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({ ...readyCondition('Unknown'), type })) }), probe: probe('Unknown'), now: T0 + 100 * S, ready: 'Unknown', taints: undefined, unknown: false, events: [] },
    { name: 'no Ready condition, not silent: left alone', node: nodeWith({ ready: 'none' }), probe: probe('never'), now: T0 + 10 * S, ready: undefined, taints: undefined, unknown: false, events: [] },
    {
      name: 'no Ready condition and silent: Ready Unknown (never updated) and unreachable',
      node: nodeWith({ ready: 'none' }), probe: probe('never'), now: T0 + 41 * S, ready: 'Unknown', unknown: true, events: [],
      taints: [unreachable(T0 + 41 * S), unreachable(0, 'NoSchedule')],
    },
  ];
  it.each(cases)('$name', ({ node, probe: p, now, ready, taints, unknown, events }) => {
    const plan = planNodeHealth(node, p, now, defaultTiming);
    expect(plan.ready).toBe(ready);
    expect(taintsOf(plan.actions)).toEqual(taints);
    expect(conditionsOf(plan.actions) !== undefined).toBe(unknown);
    expect(reasonsOf(plan.actions)).toEqual(events);
  });

  it('marks every kubelet condition Unknown with the Kubernetes reason and message, heartbeat kept', () => {
    const node = nodeWith({ conditions: [readyCondition('True'), { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: iso(T0) }, { type: 'NetworkUnavailable', status: 'False' }] });
    const conditions = conditionsOf(planNodeHealth(node, probe(), T0 + 45 * S, defaultTiming).actions)!;
    const byType = Object.fromEntries(conditions.map((c) => [c.type, c]));
    expect(byType.Ready).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: '2026-01-01T00:00:45Z', lastHeartbeatTime: iso(T0) });
    expect(byType.MemoryPressure).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(byType.DiskPressure).toMatchObject({ status: 'Unknown', reason: 'NodeStatusNeverUpdated' });
    expect(byType.NetworkUnavailable).toEqual({ type: 'NetworkUnavailable', status: 'False' });
    expect(readyIsControllerVerdict({ ...node, status: { conditions } })).toBe(true);
    expect(readyIsControllerVerdict(node)).toBe(false);
  });

  it('keeps the timeAdded of a readiness taint already there', () => {
    const node = nodeWith({ ready: 'Unknown', taints: [unreachable(T0 - 30 * S)] });
    expect(taintsOf(planNodeHealth(node, probe('Unknown'), T0 + 50 * S, defaultTiming).actions)).toEqual([unreachable(T0 - 30 * S), unreachable(0, 'NoSchedule')]);
  });

  it('scales the grace period with the timing profile', () => {
    const fast = scaleTiming(defaultTiming, 10);
    expect(planNodeHealth(nodeWith(), probe(), T0 + 3_900, fast).ready).toBe('True');
    expect(planNodeHealth(nodeWith(), probe(), T0 + 4_100, fast).ready).toBe('Unknown');
  });
});

describe('observeProbe', () => {
  it('starts fresh, moves the probe time only when the heartbeat changes', () => {
    const first = observeProbe(undefined, 'a', T0);
    expect(first).toEqual({ heartbeat: 'a', probeTime: T0 });
    expect(observeProbe({ ...first, lastReady: 'True' }, 'a', T0 + 30 * S)).toEqual({ heartbeat: 'a', probeTime: T0, lastReady: 'True' });
    expect(observeProbe(first, 'b', T0 + 30 * S)).toEqual({ heartbeat: 'b', probeTime: T0 + 30 * S });
  });
});

describe('planPodsNotReady', () => {
  const pods = [podOn('edge-1', { name: 'ready' }), podOn('edge-1', { name: 'already', ready: 'False' }), podOn('edge-1', { name: 'no-conditions', ready: 'none' }), podOn('edge-2', { name: 'elsewhere' }), podOn('edge-1', { name: 'going', deleting: true })];

  it('sets Ready=False once, only on this node, for pods that have a Ready condition', () => {
    const actions = planPodsNotReady('edge-1', 'Unknown', pods, T0 + 45 * S);
    expect(actions.map((a) => a.pod.metadata.name)).toEqual(['ready']);
    const conditions = actions[0]!.status.conditions!;
    expect(conditions.find((c) => c.type === 'Ready')).toEqual({ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:45Z' });
    expect(conditions.find((c) => c.type === 'ContainersReady')?.status).toBe('True');
    expect(actions[0]!.status.phase).toBe('Running');
  });

  it.each(['True', undefined] as const)('does nothing while the node is Ready=%s', (ready) => {
    expect(planPodsNotReady('edge-1', ready, pods, T0)).toEqual([]);
  });

  it('also for a node that reports Ready=False itself', () => {
    expect(planPodsNotReady('edge-1', 'False', pods, T0).map((a) => a.pod.metadata.name)).toEqual(['ready']);
  });
});
