import { describe, expect, it } from 'vitest';
import { PodPlacement, podRequests } from '../../cloud/scheduler/pod-placement.js';
import type { Container, Pod } from '../../shared/types.js';

const container = (requests?: Record<string, string>): Container => ({ name: 'c', ...(requests ? { resources: { requests } } : {}) });
const pod = (containers: Container[], initContainers?: Container[]): Pod => ({ metadata: { name: 'p' }, spec: { containers, ...(initContainers ? { initContainers } : {}) } });
const Mi = 2 ** 20;

describe('podRequests', () => {
  it.each([
    { name: 'nothing requested: the non-zero defaults for scoring', pod: pod([container()]), want: { cpu: 0, memory: 0, nonZeroCpu: 100, nonZeroMemory: 200 * Mi } },
    { name: 'containers sum', pod: pod([container({ cpu: '250m', memory: '64Mi' }), container({ cpu: '1', memory: '1Gi' })]), want: { cpu: 1250, memory: 1088 * Mi, nonZeroCpu: 1250, nonZeroMemory: 1088 * Mi } },
    { name: 'defaults apply per container and resource', pod: pod([container({ cpu: '250m' }), container({ memory: '1Mi' })]), want: { cpu: 250, memory: Mi, nonZeroCpu: 350, nonZeroMemory: 201 * Mi } },
    { name: 'an explicit zero is zero', pod: pod([container({ cpu: '0', memory: '0' })]), want: { cpu: 0, memory: 0, nonZeroCpu: 0, nonZeroMemory: 0 } },
    { name: 'the largest init container raises the sum', pod: pod([container({ cpu: '1', memory: '1Mi' })], [container({ cpu: '2' }), container({ cpu: '500m', memory: '2Mi' })]), want: { cpu: 2000, memory: 2 * Mi, nonZeroCpu: 2000, nonZeroMemory: 200 * Mi } },
  ])('$name', ({ pod: p, want }) => expect(podRequests(p)).toEqual(want));
});

describe('PodPlacement', () => {
  const small = { cpu: 100, memory: 10, nonZeroCpu: 100, nonZeroMemory: 10 };
  const big = { cpu: 1000, memory: 100, nonZeroCpu: 1000, nonZeroMemory: 100 };

  it('sums pods and requests per node incrementally, through moves, changes and removals', () => {
    const placement = new PodPlacement();
    placement.set('p1', 'a', small);
    placement.set('p2', 'a', big);
    placement.set('p3', 'b', small);
    placement.set('p2', 'a', big); // no change
    expect(Object.fromEntries(placement.usage)).toEqual({
      a: { pods: 2, cpu: 1100, memory: 110, nonZeroCpu: 1100, nonZeroMemory: 110 },
      b: { pods: 1, ...small },
    });
    placement.set('p2', 'b', big);
    placement.set('p1', 'a', big);
    expect(Object.fromEntries(placement.usage)).toEqual({ a: { pods: 1, ...big }, b: { pods: 2, cpu: 1100, memory: 110, nonZeroCpu: 1100, nonZeroMemory: 110 } });
    placement.set('p1', undefined);
    placement.set('unknown', undefined);
    expect(placement.usage.has('a')).toBe(false);
    expect(placement.count('a')).toBe(0);
    expect(placement.count('b')).toBe(2);
  });
});
