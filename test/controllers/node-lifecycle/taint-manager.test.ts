import { describe, expect, it } from 'vitest';
import { planTaintManager, replansOnPodChange, taintsFirstSeen, type TaintManagerMemory } from '../../../cloud/controllers/node-lifecycle/taint-manager.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Node, Pod, Taint } from '../../../shared/types.js';
import { nodeWith, podOn, S, T0, unreachable } from './builders.js';

const bare = (key: string, effect: Taint['effect'] = 'NoExecute'): Taint => ({ key, effect });

describe('taintsFirstSeen (NoExecute taints without timeAdded count from when the controller first saw them)', () => {
  const cases: { name: string; seen: [string, number][]; taints: Taint[]; want: [string, number][] }[] = [
    { name: 'a new one: now', seen: [], taints: [bare('maintenance')], want: [['maintenance:NoExecute', T0]] },
    { name: 'one seen before keeps its time', seen: [['maintenance:NoExecute', T0 - 9 * S]], taints: [bare('maintenance')], want: [['maintenance:NoExecute', T0 - 9 * S]] },
    { name: 'one gone is forgotten', seen: [['maintenance:NoExecute', T0 - 9 * S]], taints: [], want: [] },
    { name: 'a taint with timeAdded counts from that', seen: [], taints: [unreachable(T0 - S)], want: [] },
    { name: 'NoSchedule taints evict nobody', seen: [], taints: [bare('maintenance', 'NoSchedule')], want: [] },
    { name: 'the same key with another effect is another taint', seen: [['maintenance:NoSchedule', T0 - S]], taints: [bare('maintenance')], want: [['maintenance:NoExecute', T0]] },
  ];
  it.each(cases)('$name', ({ seen, taints, want }) => {
    expect([...taintsFirstSeen(new Map(seen), nodeWith({ taints }), T0)]).toEqual(want);
  });
});

const web = podOn('edge-1', { name: 'web' });
const db = podOn('edge-1', { name: 'db' });
const forever = podOn('edge-1', { name: 'forever', tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }] });
const memory = (scheduled: Pod[] = [], extra: Partial<TaintManagerMemory> = {}): TaintManagerMemory => ({
  scheduled: new Map(scheduled.map((p) => [`default/${p.metadata.name}`, p])),
  taintSeen: new Map(),
  ...extra,
});
const summary = (actions: ReturnType<typeof planTaintManager>['actions']): string[] =>
  actions.map((a) => {
    if (a.type === 'event') return `event ${a.pod.metadata.name} ${a.eventType} ${a.reason}: ${a.message}`;
    if (a.type === 'warnInvalidAutonomy') return `warn ${a.node} ${a.value}`;
    if (a.type === 'evict') return `evict ${a.pods.map((p) => p.metadata.name).join(',')}`;
    return `wakeAt ${a.at === undefined ? 'never' : `T0+${(a.at - T0) / S}s`}`;
  });

describe('planTaintManager', () => {
  const cases: { name: string; node: Node; pods: Pod[]; memory?: TaintManagerMemory; gone?: Pod[]; now?: number; actions: string[]; scheduled: string[] }[] = [
    { name: 'a healthy node: nothing scheduled, no wake-up', node: nodeWith(), pods: [web], actions: ['wakeAt never'], scheduled: [] },
    { name: 'unreachable: each pod scheduled for 300 s after the taint', node: nodeWith({ taints: [unreachable(T0)] }), pods: [web, forever], now: T0 + S, actions: ['wakeAt T0+300s'], scheduled: ['default/web'] },
    { name: 'its time come: evicted, no longer scheduled', node: nodeWith({ taints: [unreachable(T0)] }), pods: [web], memory: memory([web]), now: T0 + 300 * S, actions: ['evict web', 'wakeAt never'], scheduled: [] },
    {
      name: 'the taint lifted: the deletion of each pod still there is cancelled',
      node: nodeWith(),
      pods: [web],
      memory: memory([web, db]),
      gone: [db],
      actions: ['event web Normal TaintManagerEviction: Cancelling deletion of Pod default/web', 'wakeAt never'],
      scheduled: [],
    },
    { name: 'still tainted: nothing cancelled', node: nodeWith({ taints: [unreachable(T0)] }), pods: [web], memory: memory([web]), now: T0 + S, actions: ['wakeAt T0+300s'], scheduled: ['default/web'] },
    { name: 'an invalid autonomy annotation: warned about', node: nodeWith({ autonomy: 'a while' }), pods: [], actions: ['warn edge-1 a while', 'wakeAt never'], scheduled: [] },
    { name: 'the same invalid annotation: warned about once', node: nodeWith({ autonomy: 'a while' }), pods: [], memory: memory([], { warned: 'a while' }), actions: ['wakeAt never'], scheduled: [] },
    { name: 'another invalid annotation: warned about again', node: nodeWith({ autonomy: 'soon' }), pods: [], memory: memory([], { warned: 'a while' }), actions: ['warn edge-1 soon', 'wakeAt never'], scheduled: [] },
    {
      name: 'a NoExecute taint without timeAdded counts from when it was first seen',
      node: nodeWith({ taints: [bare('node.kubernetes.io/unreachable')] }),
      pods: [web],
      memory: memory([], { taintSeen: new Map([['node.kubernetes.io/unreachable:NoExecute', T0 - 100 * S]]) }),
      actions: ['wakeAt T0+200s'],
      scheduled: ['default/web'],
    },
  ];
  it.each(cases)('$name', ({ node, pods, memory: m = memory(), gone = [], now = T0, actions, scheduled }) => {
    const plan = planTaintManager({ memory: m, node, pods, indexed: (p) => !gone.includes(p), now, timing: defaultTiming });
    expect(summary(plan.actions)).toEqual(actions);
    expect([...plan.memory.scheduled.keys()]).toEqual(scheduled);
  });

  it('remembers the invalid annotation warned about, and forgets it once valid', () => {
    expect(planTaintManager({ memory: memory(), node: nodeWith({ autonomy: 'x' }), pods: [], indexed: () => true, now: T0, timing: defaultTiming }).memory.warned).toBe('x');
    expect(planTaintManager({ memory: memory([], { warned: 'x' }), node: nodeWith({ autonomy: '1h' }), pods: [], indexed: () => true, now: T0, timing: defaultTiming }).memory.warned).toBeUndefined();
  });

  it('remembers when each bare NoExecute taint was first seen', () => {
    const plan = planTaintManager({ memory: memory(), node: nodeWith({ taints: [bare('maintenance')] }), pods: [], indexed: () => true, now: T0, timing: defaultTiming });
    expect([...plan.memory.taintSeen]).toEqual([['maintenance:NoExecute', T0]]);
  });
});

describe('replansOnPodChange (a pod change plans its node again only where pods are marked or evicted)', () => {
  it.each([
    ['no node', undefined, false],
    ['a ready node', nodeWith(), false],
    ['a node that never reported', nodeWith({ ready: 'none' }), false],
    ['a node not ready', nodeWith({ ready: 'False' }), true],
    ['a node gone silent', nodeWith({ ready: 'Unknown' }), true],
    ['a ready node with a NoExecute taint', nodeWith({ taints: [bare('maintenance')] }), true],
    ['a ready node with a NoSchedule taint', nodeWith({ taints: [bare('maintenance', 'NoSchedule')] }), false],
  ] as const)('%s: %s', (_name, node, want) => expect(replansOnPodChange(node)).toBe(want));
});
