import { describe, expect, it } from 'vitest';
import { PodPlacement, PodRequestsCache, podRequests } from '../../cloud/scheduler/pod-placement.js';
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

  it('sums pods and requests per node incrementally, through moves, changes and removals, in one live object per node', () => {
    const placement = new PodPlacement();
    const a = placement.usageOf('a');
    placement.set('p1', 'a', small);
    placement.set('p2', 'a', big);
    placement.set('p3', 'b', small);
    placement.set('p2', 'a', big); // no change
    expect(a).toEqual({ pods: 2, cpu: 1100, memory: 110, nonZeroCpu: 1100, nonZeroMemory: 110 });
    expect(placement.usageOf('b')).toEqual({ pods: 1, ...small });
    placement.set('p2', 'b', big);
    placement.set('p1', 'a', big);
    expect(a).toEqual({ pods: 1, ...big });
    expect(placement.usageOf('b')).toEqual({ pods: 2, cpu: 1100, memory: 110, nonZeroCpu: 1100, nonZeroMemory: 110 });
    placement.set('p1', undefined);
    placement.set('unknown', undefined);
    expect(a).toEqual({ pods: 0, cpu: 0, memory: 0, nonZeroCpu: 0, nonZeroMemory: 0 });
    expect(placement.usageOf('a')).toBe(a);
    expect(placement.count('a')).toBe(0);
    expect(placement.count('b')).toBe(2);
    expect(placement.nodeOf('p2')).toBe('b');
    expect(placement.nodeOf('p1')).toBeUndefined();
  });

  it('drops a deleted node only once no pod is left on it', () => {
    const placement = new PodPlacement();
    const a = placement.usageOf('a');
    placement.set('p1', 'a', small);
    placement.dropNode('a');
    expect(placement.usageOf('a')).toBe(a);
    placement.set('p1', undefined);
    placement.dropNode('a');
    expect(placement.usageOf('a')).not.toBe(a);
  });
});

describe('PodRequestsCache', () => {
  const versioned = (uid: string | undefined, generation: number | undefined, cpu: string): Pod => ({
    metadata: { name: 'p', uid, generation, resourceVersion: String(Math.random()) },
    spec: { containers: [container({ cpu })] },
  });

  it('parses a pod once per spec generation, however many versions of it come by', () => {
    const cache = new PodRequestsCache();
    const first = cache.of(versioned('u1', 1, '250m'));
    expect(first.cpu).toBe(250);
    // A status update: a new object, same uid and generation (the cached value even if the text differed).
    expect(cache.of(versioned('u1', 1, '999'))).toBe(first);
    // A spec change bumps the generation.
    expect(cache.of(versioned('u1', 2, '500m')).cpu).toBe(500);
    expect(cache.of(versioned('u2', 1, '1')).cpu).toBe(1000);
  });

  it('forgets a deleted pod, and parses pods without a uid or generation every time', () => {
    const cache = new PodRequestsCache();
    cache.of(versioned('u1', 1, '250m'));
    cache.forget('u1');
    expect(cache.of(versioned('u1', 1, '300m')).cpu).toBe(300);
    expect(cache.of(versioned(undefined, 1, '1')).cpu).toBe(1000);
    expect(cache.of(versioned(undefined, 1, '2')).cpu).toBe(2000);
    expect(cache.of(versioned('u3', undefined, '1')).cpu).toBe(1000);
    expect(cache.of(versioned('u3', undefined, '2')).cpu).toBe(2000);
  });
});
