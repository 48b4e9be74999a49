import { describe, expect, it } from 'vitest';
import { autonomyOf, planEvictions } from '../../../cloud/controllers/node-lifecycle/evictions.js';
import { parseGoDuration } from '../../../shared/go-duration.js';
import { defaultTiming, scaleTiming, type Timing } from '../../../shared/timing.js';
import type { Pod, Taint, Toleration } from '../../../shared/types.js';
import { nodeWith, notReady, podOn, S, T0, unreachable } from './builders.js';

const H = 3600 * S;
const forever: Toleration[] = [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }];
const custom: Taint = { key: 'maintenance', value: 'now', effect: 'NoExecute', timeAdded: new Date(T0).toISOString() };

interface Case {
  name: string;
  taints: Taint[];
  autonomy?: string;
  tolerations?: Toleration[];
  now: number;
  timing?: Timing;
  /** Evicted at `now`? */
  evict: boolean;
  /** The pod's deadline (undefined: never). */
  at: number | undefined;
}

const cases: Case[] = [
  { name: 'default toleration: 299.9 s after the taint, not yet', taints: [unreachable()], now: T0 + 299_900, evict: false, at: T0 + 300 * S },
  { name: 'default toleration: exactly 300 s after the taint, evicted', taints: [unreachable()], now: T0 + 300 * S, evict: true, at: T0 + 300 * S },
  { name: 'a toleration without seconds never evicts', taints: [unreachable()], tolerations: forever, now: T0 + 1000 * H, evict: false, at: undefined },
  { name: 'not tolerated at all: evicted at once', taints: [custom], now: T0 + 1, evict: true, at: T0 + 1 },
  { name: 'one of two taints not tolerated: evicted at once', taints: [unreachable(), custom], now: T0 + 1, evict: true, at: T0 + 1 },
  { name: 'not-ready taint for a node reporting Ready=False: 300 s', taints: [notReady(T0)], now: T0 + 300 * S, evict: true, at: T0 + 300 * S },
  { name: 'the earliest of several taints counts', taints: [unreachable(T0), notReady(T0 + 100 * S)], tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 600 }, { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }], now: T0, evict: false, at: T0 + 160 * S },
  { name: 'NoSchedule taints do not evict', taints: [unreachable(T0, 'NoSchedule')], tolerations: [], now: T0 + H, evict: false, at: undefined },
  { name: 'negative tolerationSeconds: at once', taints: [unreachable()], tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: -5 }], now: T0, evict: true, at: T0 },
  { name: 'time scale 10: 300 s toleration ends after 29.9 s? no', taints: [unreachable()], timing: scaleTiming(defaultTiming, 10), now: T0 + 29_900, evict: false, at: T0 + 30 * S },
  { name: 'time scale 10: 300 s toleration ends after 30 s', taints: [unreachable()], timing: scaleTiming(defaultTiming, 10), now: T0 + 30 * S, evict: true, at: T0 + 30 * S },
  { name: 'autonomy "0": never evicted from an unreachable node', taints: [unreachable()], autonomy: '0', now: T0 + 1000 * H, evict: false, at: undefined },
  { name: 'autonomy "24h": not at 300 s', taints: [unreachable()], autonomy: '24h', now: T0 + 300 * S, evict: false, at: T0 + 24 * H },
  { name: 'autonomy "24h": at 24 h', taints: [unreachable()], autonomy: '24h', now: T0 + 24 * H, evict: true, at: T0 + 24 * H },
  { name: 'autonomy "90m" at time scale 10: 9 minutes', taints: [unreachable()], autonomy: '90m', timing: scaleTiming(defaultTiming, 10), now: T0 + 9 * 60 * S, evict: true, at: T0 + 9 * 60 * S },
  { name: 'autonomy: a toleration without seconds still never evicts', taints: [unreachable()], autonomy: '30s', tolerations: forever, now: T0 + H, evict: false, at: undefined },
  { name: 'autonomy: a pod not tolerating the taint is still evicted at once', taints: [unreachable()], autonomy: '24h', tolerations: [], now: T0, evict: true, at: T0 },
  { name: 'autonomy applies to unreachable only, not to not-ready', taints: [notReady()], autonomy: '24h', now: T0 + 300 * S, evict: true, at: T0 + 300 * S },
  { name: 'an invalid autonomy duration is ignored', taints: [unreachable()], autonomy: 'one day', now: T0 + 300 * S, evict: true, at: T0 + 300 * S },
  { name: 'a negative autonomy duration is ignored', taints: [unreachable()], autonomy: '-1h', now: T0 + 300 * S, evict: true, at: T0 + 300 * S },
];

describe('planEvictions', () => {
  it.each(cases)('$name', ({ taints, autonomy, tolerations, now, timing = defaultTiming, evict, at }) => {
    const pod = podOn('edge-1', tolerations ? { tolerations } : {});
    const plan = planEvictions(nodeWith({ taints, autonomy }), [pod], now, timing);
    expect(plan.evict.map((p) => p.metadata.name)).toEqual(evict ? ['web'] : []);
    expect(plan.deadlines.get('default/web')).toBe(at);
    expect(plan.nextAt).toBe(at !== undefined && at > now ? at : undefined);
  });

  it('reports an invalid autonomy annotation so that it can be logged', () => {
    expect(planEvictions(nodeWith({ taints: [], autonomy: 'soon' }), [], T0, defaultTiming).invalidAutonomy).toBe('soon');
    expect(planEvictions(nodeWith({ taints: [], autonomy: '1h' }), [], T0, defaultTiming).invalidAutonomy).toBeUndefined();
  });

  it('plans only pods bound to this node and not already being deleted; the next deadline is the earliest', () => {
    const pods: Pod[] = [
      podOn('edge-1', { name: 'late', tolerations: [{ operator: 'Exists', tolerationSeconds: 600 }] }),
      podOn('edge-1', { name: 'early', tolerations: [{ operator: 'Exists', tolerationSeconds: 60 }] }),
      podOn('edge-2', { name: 'elsewhere', tolerations: [] }),
      podOn('edge-1', { name: 'going', tolerations: [], deleting: true }),
    ];
    const plan = planEvictions(nodeWith({ taints: [unreachable()] }), pods, T0 + S, defaultTiming);
    expect(plan.evict).toEqual([]);
    expect([...plan.deadlines.keys()]).toEqual(['default/late', 'default/early']);
    expect(plan.nextAt).toBe(T0 + 60 * S);
  });

  it('counts a taint without timeAdded from when it was first seen', () => {
    const bare: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
    const node = nodeWith({ taints: [bare] });
    expect(planEvictions(node, [podOn('edge-1')], T0 + 10 * S, defaultTiming, () => T0).nextAt).toBe(T0 + 300 * S);
    expect(planEvictions(node, [podOn('edge-1')], T0 + 10 * S, defaultTiming).nextAt).toBe(T0 + 310 * S);
  });
});

describe('autonomy durations', () => {
  it.each([
    ['24h', 24 * H], ['90m', 90 * 60 * S], ['30s', 30 * S], ['1h30m', 90 * 60 * S], ['1.5h', 90 * 60 * S], ['500ms', 500], ['0', 0], ['-2m', -120 * S],
    ['', undefined], ['24', undefined], ['1d', undefined], ['h', undefined], ['one day', undefined],
  ] as const)('parseGoDuration(%j) = %j', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
  });

  it('reads the node annotation; "0" is for ever', () => {
    expect(autonomyOf(nodeWith())).toEqual({});
    expect(autonomyOf(nodeWith({ autonomy: '0' }))).toEqual({ ms: Infinity });
    expect(autonomyOf(nodeWith({ autonomy: '2h' }))).toEqual({ ms: 2 * H });
    expect(autonomyOf(nodeWith({ autonomy: 'x' }))).toEqual({ invalid: 'x' });
  });
});
