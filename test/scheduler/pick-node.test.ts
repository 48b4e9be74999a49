import { describe, expect, it } from 'vitest';
import { fitSignature, pickNode, tolerates } from '../../cloud/scheduler/pick-node.js';
import type { Node, NodeSpec, Pod, PodSpec } from '../../shared/types.js';

const node = (name: string, ready: 'True' | 'False' | 'Unknown' | 'none' = 'True', spec: NodeSpec = {}, labels?: Record<string, string>): Node => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
  status: { conditions: ready === 'none' ? [] : [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: ready }] },
});
const pod = (spec: Partial<PodSpec> = {}): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c' }], ...spec } });
const load = (entries: Partial<Record<string, number>> = {}) => new Map(Object.entries(entries).map(([k, v]) => [k, v ?? 0]));
const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' } as const;

describe('pickNode', () => {
  it.each([
    { name: 'no nodes', pod: pod(), nodes: [], counts: {}, want: undefined },
    { name: 'one ready node', pod: pod(), nodes: [node('a')], counts: {}, want: 'a' },
    { name: 'not ready is filtered', pod: pod(), nodes: [node('a', 'False'), node('b', 'Unknown'), node('c', 'none')], counts: {}, want: undefined },
    { name: 'cordoned is filtered', pod: pod(), nodes: [node('a', 'True', { unschedulable: true }), node('b')], counts: { b: 9 }, want: 'b' },
    { name: 'fewest pods wins', pod: pod(), nodes: [node('a'), node('b'), node('c')], counts: { a: 3, b: 1, c: 2 }, want: 'b' },
    { name: 'ties go to the first name', pod: pod(), nodes: [node('c'), node('b'), node('a')], counts: { a: 1, b: 0, c: 0 }, want: 'b' },
    { name: 'nodeSelector must match', pod: pod({ nodeSelector: { zone: 'x' } }), nodes: [node('a'), node('b', 'True', {}, { zone: 'x' })], counts: { b: 5 }, want: 'b' },
    { name: 'untolerated NoSchedule taint', pod: pod(), nodes: [node('a', 'True', { taints: [unreachable] })], counts: {}, want: undefined },
    { name: 'tolerated taint', pod: pod({ tolerations: [{ key: unreachable.key, operator: 'Exists' }] }), nodes: [node('a', 'True', { taints: [unreachable] })], counts: {}, want: 'a' },
    { name: 'PreferNoSchedule does not filter', pod: pod(), nodes: [node('a', 'True', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] })], counts: {}, want: 'a' },
  ])('$name', ({ pod: p, nodes, counts, want }) => expect(pickNode(p, nodes, load(counts))).toBe(want));
});

describe('tolerations', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoExecute' } as const;
  it.each([
    [{ operator: 'Exists' }, true],
    [{ key: 'k', operator: 'Exists' }, true],
    [{ key: 'k', value: 'v' }, true],
    [{ key: 'k', value: 'w' }, false],
    [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, false],
    [{ key: 'other', operator: 'Exists' }, false],
  ] as const)('%j tolerates k=v:NoExecute: %s', (toleration, ok) => expect(tolerates(toleration, taint)).toBe(ok));
});

describe('fitSignature', () => {
  it('ignores heartbeats but not readiness', () => {
    const a = node('a');
    const beat = { ...a, status: { ...a.status, conditions: a.status!.conditions!.map((c) => ({ ...c, lastHeartbeatTime: 'later' })) } };
    expect(fitSignature(beat)).toBe(fitSignature(a));
    expect(fitSignature(node('a', 'False'))).not.toBe(fitSignature(a));
  });
});
