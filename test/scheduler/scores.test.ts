import { describe, expect, it } from 'vitest';
import { nodeOffer } from '../../cloud/scheduler/filters.js';
import { pickNode } from '../../cloud/scheduler/pick-node.js';
import { podRequests } from '../../cloud/scheduler/pod-placement.js';
import { balancedAllocationScore, intolerableTaints, leastAllocatedScore, normalize, preferredAffinityScore } from '../../cloud/scheduler/scores.js';
import type { Node, Pod } from '../../shared/types.js';
import { asking, infos, node, placed, pod, withAffinity, type OnNodes } from './fixtures.js';

const offer = (n: Node) => nodeOffer(n);
const usageOf = (pods: Pod[]) => placed({ n: pods }).usageOf('n');
const prefer = (key: string) => ({ weight: 1, preference: { matchExpressions: [{ key, operator: 'Exists' as const }] } });
const soft = (key: string) => ({ key, effect: 'PreferNoSchedule' as const });

describe('score plugins, one by one', () => {
  it.each([
    // (4000 − 1000 − 100) × 100 / 4000 = 72; (8Gi − 2Gi − 200Mi) × 100 / 8Gi = 72.
    { name: 'LeastAllocated: free share, non-zero defaults for what is not requested', on: [asking('1', '2Gi')], pod: pod(), want: 72 },
    { name: 'LeastAllocated: an empty node', on: [], pod: asking('2', '4Gi'), want: 50 },
    { name: 'LeastAllocated: a full node', on: [asking('3', '6Gi')], pod: asking('1', '2Gi'), want: 0 },
  ])('$name', ({ on, pod: p, want }) => expect(leastAllocatedScore(offer(node('n')), usageOf(on), podRequests(p))).toBe(want));

  it.each([
    { name: 'BalancedAllocation: equal shares', on: [asking('1', '2Gi')], pod: asking('1', '2Gi'), want: 100 },
    // cpu 2/4 = 0.5, memory 0/8Gi: 100 × (1 − 0.25).
    { name: 'BalancedAllocation: cpu only', on: [], pod: asking('2'), want: 75 },
    // Shares above 1 count as 1: cpu 1, memory 0.
    { name: 'BalancedAllocation: overcommitted share is capped', on: [asking('5')], pod: pod(), want: 50 },
  ])('$name', ({ on, pod: p, want }) => expect(balancedAllocationScore(offer(node('n')), usageOf(on), podRequests(p))).toBe(want));

  it('BalancedAllocation: a node without cpu or memory allocatable is balanced', () =>
    expect(balancedAllocationScore(offer(node('n', { allocatable: { pods: '10' } })), usageOf([]), podRequests(asking('1')))).toBe(100));

  it('NodeAffinity: the weights of the matching preferred terms add up', () => {
    const terms = [{ ...prefer('a'), weight: 10 }, { ...prefer('b'), weight: 5 }, { ...prefer('c'), weight: 7 }];
    expect(preferredAffinityScore(terms, offer(node('n', { labels: { a: '', b: '' } })))).toBe(15);
  });

  it('TaintToleration: counts the PreferNoSchedule taints not tolerated', () => {
    const n = node('n', { taints: [soft('x'), soft('y'), { key: 'z', effect: 'NoSchedule' }] });
    expect(intolerableTaints([], offer(n))).toBe(2);
    expect(intolerableTaints([{ key: 'x', operator: 'Exists' }], offer(n))).toBe(1);
  });

  it.each([
    { scores: [0, 5, 10], reverse: false, want: [0, 50, 100] },
    { scores: [1, 3], reverse: false, want: [33, 100] },
    { scores: [0, 2, 1], reverse: true, want: [100, 0, 50] },
    { scores: [0, 0], reverse: false, want: [0, 0] },
    { scores: [0, 0], reverse: true, want: [100, 100] },
  ])('normalize $scores (reverse: $reverse) is $want', ({ scores, reverse, want }) => expect(normalize([...scores], reverse)).toEqual(want));
});

type Case = { name: string; pod: Pod; nodes: Node[]; on?: OnNodes; want: string };

describe('scores together, weighted (through pickNode)', () => {
  it.each<Case>([
    { name: 'fewest pods wins (LeastAllocated with default requests)', pod: pod(), nodes: [node('a'), node('b'), node('c')], on: { a: 3, b: 1, c: 2 }, want: 'b' },
    { name: 'ties go to the first name', pod: pod(), nodes: [node('c'), node('b'), node('a')], on: { a: 1 }, want: 'b' },
    // b: 100m of 4 cpu and 200Mi of 8Gi; a: 200m of 8 cpu and 400Mi of 16Gi: both score 97 + 100.
    { name: 'equal scores go to the fewest pods, before the name', pod: pod(), nodes: [node('a', { allocatable: { cpu: '8', memory: '16Gi', pods: '110' } }), node('b')], on: { a: 1 }, want: 'b' },
    { name: 'LeastAllocated: the most free cpu and memory beats the fewest pods', pod: asking('500m', '512Mi'), nodes: [node('a'), node('b')], on: { a: [asking('3', '6Gi')], b: 3 }, want: 'b' },
    { name: 'LeastAllocated: a bigger node is less allocated', pod: asking('1', '1Gi'), nodes: [node('a'), node('b', { allocatable: { cpu: '16', memory: '32Gi', pods: '110' } })], on: { b: [asking('1', '1Gi'), asking('1', '1Gi')] }, want: 'b' },
    // a: cpu 3/4, memory 5/8: least (25+37)/2=31, balanced 93 → 124; b: cpu 1/4, memory 7/8: least (75+12)/2=43, balanced 68 → 111.
    { name: 'BalancedAllocation: even cpu and memory shares beat more free room', pod: asking('1', '1Gi'), nodes: [node('a'), node('b')], on: { a: [asking('2', '4Gi')], b: [asking(undefined, '6Gi')] }, want: 'a' },
    {
      name: 'NodeAffinity: preferred terms add their weights',
      pod: withAffinity({ preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] } }, { weight: 50, preference: { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] } }] }),
      nodes: [node('a'), node('b', { labels: { zone: 'x' } }), node('c', { labels: { ssd: '' } })],
      on: { b: 1, c: 5 },
      want: 'c',
    },
    {
      name: 'NodeAffinity: preferred beats a lighter node',
      pod: withAffinity({ preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['y'] }] } }] }),
      nodes: [node('a', { labels: { zone: 'y' } }), node('b', { labels: { zone: 'x' } })],
      on: { b: 10 },
      want: 'b',
    },
    { name: 'TaintToleration: fewer intolerable PreferNoSchedule taints win', pod: pod(), nodes: [node('a', { taints: [soft('k')] }), node('b', { taints: [soft('k'), soft('l')] }), node('c', { taints: [soft('k')] })], on: { a: 10, b: 0, c: 8 }, want: 'c' },
    { name: 'TaintToleration: an untainted node beats a lighter tainted one', pod: pod(), nodes: [node('a', { taints: [soft('k')] }), node('b')], on: { b: 5 }, want: 'b' },
    { name: 'TaintToleration: a tolerated PreferNoSchedule taint costs nothing', pod: pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'PreferNoSchedule' }] }), nodes: [node('a', { taints: [soft('k')] }), node('b')], on: { b: 1 }, want: 'a' },
    { name: 'TaintToleration: a NoSchedule toleration does not tolerate PreferNoSchedule', pod: pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] }), nodes: [node('a', { taints: [soft('k')] }), node('b')], on: { b: 1 }, want: 'b' },
  ])('$name', ({ pod: p, nodes, on, want }) => expect(pickNode(p, infos(nodes, on)).node).toBe(want));
});
