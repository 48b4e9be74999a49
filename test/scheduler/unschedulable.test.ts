import { describe, expect, it } from 'vitest';
import { unschedulablePatch } from '../../cloud/scheduler/unschedulable.js';
import type { Pod, PodCondition } from '../../shared/types.js';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const EARLIER = '2026-01-01T00:00:00.000Z';
const withConditions = (conditions: PodCondition[]): Pod => ({ metadata: { name: 'p', resourceVersion: '7' }, spec: { containers: [] }, status: { conditions } });
const unschedulable = (message: string): PodCondition => ({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: EARLIER });
const ready: PodCondition = { type: 'Ready', status: 'False' };

describe('unschedulablePatch', () => {
  it.each([
    { name: 'no condition yet: set, transition now', pod: withConditions([ready]), want: [ready, { status: 'False', reason: 'Unschedulable', message: 'm1', lastTransitionTime: new Date(NOW).toISOString() }] },
    { name: 'the same message: nothing to write', pod: withConditions([unschedulable('m1')]), want: undefined },
    { name: 'a new message: written, the time of the transition to False kept', pod: withConditions([unschedulable('m0'), ready]), want: [ready, { message: 'm1', lastTransitionTime: EARLIER }] },
    { name: 'PodScheduled True before: a transition now', pod: withConditions([{ type: 'PodScheduled', status: 'True', lastTransitionTime: EARLIER }]), want: [{ status: 'False', message: 'm1', lastTransitionTime: new Date(NOW).toISOString() }] },
  ])('$name', ({ pod, want }) => {
    const patch = unschedulablePatch(pod, 'm1', NOW);
    if (want === undefined) return expect(patch).toBeUndefined();
    expect(patch?.metadata.resourceVersion).toBe('7');
    expect(patch?.status.conditions).toHaveLength(want.length);
    want.forEach((c, i) => expect(patch?.status.conditions[i]).toMatchObject(c));
  });
});
