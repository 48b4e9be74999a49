import { describe, expect, it } from 'vitest';
import { filterReasons, tolerates } from '../../cloud/scheduler/filters.js';
import { matchesTerm, type NodeSelectorRequirement } from '../../cloud/scheduler/node-affinity.js';
import { pickNode, unschedulableMessage } from '../../cloud/scheduler/pick-node.js';
import type { Node, Pod, Toleration } from '../../shared/types.js';
import { asking, infos, node, pod, required, unreachable, withAffinity, type OnNodes } from './fixtures.js';

type Case = { name: string; pod: Pod; nodes: Node[]; on?: OnNodes; want: string | undefined; why?: string };
const NOT_READY = (n: number) => `0/${n} nodes are available: ${n} node(s) were not ready.`;

describe('filters (through pickNode, with the message a pod no node fits is told)', () => {
  it.each<Case>([
    { name: 'no nodes', pod: pod(), nodes: [], want: undefined, why: 'no nodes available to schedule pods' },
    { name: 'one ready node', pod: pod(), nodes: [node('a')], want: 'a' },
    { name: 'NodeReady: False, Unknown or no condition is filtered', pod: pod(), nodes: [node('a', { ready: 'False' }), node('b', { ready: 'Unknown' }), node('c', { ready: 'none' })], want: undefined, why: NOT_READY(3) },
    { name: 'NodeUnschedulable: cordoned is filtered', pod: pod(), nodes: [node('a', { unschedulable: true }), node('b')], on: { b: 9 }, want: 'b' },
    { name: 'NodeUnschedulable: reason', pod: pod(), nodes: [node('a', { unschedulable: true })], want: undefined, why: '0/1 nodes are available: 1 node(s) were unschedulable.' },
    { name: 'NodeUnschedulable: tolerated', pod: pod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }), nodes: [node('a', { unschedulable: true })], want: 'a' },
    { name: 'NodeUnschedulable: a NoExecute toleration is not enough', pod: pod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] }), nodes: [node('a', { unschedulable: true })], want: undefined },
    { name: 'NodeAffinity: nodeSelector must match', pod: pod({ nodeSelector: { zone: 'x' } }), nodes: [node('a'), node('b', { labels: { zone: 'x' } })], on: { b: 5 }, want: 'b' },
    { name: 'NodeAffinity: reason', pod: pod({ nodeSelector: { zone: 'x' } }), nodes: [node('a', { labels: { zone: 'y' } })], want: undefined, why: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." },
    { name: 'NodeAffinity: required terms are ORed', pod: withAffinity(required([{ key: 'zone', operator: 'In', values: ['x'] }], [{ key: 'gpu', operator: 'Exists' }])), nodes: [node('a'), node('b', { labels: { gpu: '' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: expressions are ANDed', pod: withAffinity(required([{ key: 'zone', operator: 'In', values: ['x'] }, { key: 'gpu', operator: 'Exists' }])), nodes: [node('a', { labels: { zone: 'x' } }), node('b', { labels: { zone: 'x', gpu: '1' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: NotIn', pod: withAffinity(required([{ key: 'zone', operator: 'NotIn', values: ['x'] }])), nodes: [node('a', { labels: { zone: 'x' } }), node('b', { labels: { zone: 'y' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: DoesNotExist', pod: withAffinity(required([{ key: 'gpu', operator: 'DoesNotExist' }])), nodes: [node('a', { labels: { gpu: '' } }), node('b')], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: Gt', pod: withAffinity(required([{ key: 'gen', operator: 'Gt', values: ['4'] }])), nodes: [node('a', { labels: { gen: '4' } }), node('b', { labels: { gen: '5' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: Lt', pod: withAffinity(required([{ key: 'gen', operator: 'Lt', values: ['5'] }])), nodes: [node('a', { labels: { gen: '5' } }), node('b', { labels: { gen: '4' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: selector and required affinity both apply', pod: withAffinity(required([{ key: 'gpu', operator: 'Exists' }]), { nodeSelector: { zone: 'x' } }), nodes: [node('a', { labels: { gpu: '' } }), node('b', { labels: { zone: 'x' } })], want: undefined, why: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector." },
    { name: 'NodeAffinity: matchFields metadata.name', pod: withAffinity({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }] } }), nodes: [node('a'), node('b')], on: { b: 4 }, want: 'b' },
    { name: 'TaintToleration: untolerated NoSchedule', pod: pod(), nodes: [node('a', { taints: [unreachable] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.' },
    { name: 'TaintToleration: untolerated NoExecute, with its value', pod: pod(), nodes: [node('a', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {k: v}.' },
    { name: 'TaintToleration: tolerated', pod: pod({ tolerations: [{ key: unreachable.key, operator: 'Exists' }] }), nodes: [node('a', { taints: [unreachable] })], want: 'a' },
    { name: 'TaintToleration: a toleration of another key does not help', pod: pod({ tolerations: [{ key: 'other', operator: 'Exists' }] }), nodes: [node('a', { taints: [unreachable] })], want: undefined },
    { name: 'TaintToleration: PreferNoSchedule does not filter', pod: pod(), nodes: [node('a', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] })], want: 'a' },
    { name: 'TaintToleration comes before NodeReady', pod: pod(), nodes: [node('a', { ready: 'Unknown', taints: [unreachable] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.' },
    { name: 'NodeResourcesFit: cpu fits exactly', pod: asking('1'), nodes: [node('a')], on: { a: [asking('3')] }, want: 'a' },
    { name: 'NodeResourcesFit: cpu 1m over', pod: asking('1001m'), nodes: [node('a')], on: { a: [asking('3')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient cpu.' },
    { name: 'NodeResourcesFit: memory fits exactly', pod: asking(undefined, '2Gi'), nodes: [node('a')], on: { a: [asking(undefined, '6Gi')] }, want: 'a' },
    { name: 'NodeResourcesFit: memory 1 byte over', pod: asking(undefined, '2147483649'), nodes: [node('a')], on: { a: [asking(undefined, '6Gi')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient memory.' },
    { name: 'NodeResourcesFit: both fit exactly', pod: asking('1', '2Gi'), nodes: [node('a')], on: { a: [asking('3', '6Gi')] }, want: 'a' },
    { name: 'NodeResourcesFit: every short resource is a reason', pod: asking('2', '5Gi'), nodes: [node('a'), node('b')], on: { a: [asking('3', '4Gi')], b: [asking('3')] }, want: undefined, why: '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.' },
    { name: 'NodeResourcesFit: the last pod slot', pod: pod(), nodes: [node('a', { allocatable: { cpu: '4', memory: '8Gi', pods: '2' } })], on: { a: 1 }, want: 'a' },
    { name: 'NodeResourcesFit: Too many pods', pod: pod(), nodes: [node('a', { allocatable: { cpu: '4', memory: '8Gi', pods: '2' } })], on: { a: 2 }, want: undefined, why: '0/1 nodes are available: 1 Too many pods.' },
    { name: 'NodeResourcesFit: no allocatable holds no pods', pod: pod(), nodes: [node('a', { allocatable: null })], want: undefined, why: '0/1 nodes are available: 1 Too many pods.' },
    { name: 'NodeResourcesFit: a pod requesting nothing fits a full node', pod: pod(), nodes: [node('a')], on: { a: [asking('4', '8Gi')] }, want: 'a' },
    { name: 'NodeResourcesFit: the largest init container counts', pod: asking('1', undefined, { initContainers: [{ name: 'i', resources: { requests: { cpu: '3500m' } } }] }), nodes: [node('a')], on: { a: [asking('1')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient cpu.' },
    {
      name: 'reasons counted per node and sorted as kube-scheduler sorts them',
      pod: asking('2'),
      nodes: [node('a', { taints: [unreachable] }), node('b'), node('c')],
      on: { b: [asking('3')], c: [asking('2500m')] },
      want: undefined,
      why: '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.',
    },
  ])('$name', ({ pod: p, nodes, on, want, why }) => {
    const pick = pickNode(p, infos(nodes, on));
    expect(pick.node).toBe(want);
    if (why !== undefined) {
      if (pick.node !== undefined) throw new Error('expected no node');
      expect(unschedulableMessage(pick.nodes, pick.reasons)).toBe(why);
    }
  });

  it('filterReasons gives the first failing filter only', () => {
    expect(filterReasons(asking('5'), node('a', { unschedulable: true, ready: 'False' }))).toEqual(['node(s) were unschedulable']);
    expect(filterReasons(asking('5', '9Gi'), node('a'))).toEqual(['Insufficient cpu', 'Insufficient memory']);
    expect(filterReasons(asking('4', '8Gi'), node('a'))).toEqual([]);
  });
});

describe('node affinity operators', () => {
  const labels = { zone: 'x', gen: '5', empty: '' };
  it.each<[NodeSelectorRequirement, boolean]>([
    [{ key: 'zone', operator: 'In', values: ['x', 'y'] }, true],
    [{ key: 'zone', operator: 'In', values: ['y'] }, false],
    [{ key: 'missing', operator: 'In', values: [''] }, false],
    [{ key: 'zone', operator: 'NotIn', values: ['y'] }, true],
    [{ key: 'zone', operator: 'NotIn', values: ['x'] }, false],
    [{ key: 'missing', operator: 'NotIn', values: ['x'] }, true],
    [{ key: 'empty', operator: 'Exists' }, true],
    [{ key: 'missing', operator: 'Exists' }, false],
    [{ key: 'missing', operator: 'DoesNotExist' }, true],
    [{ key: 'zone', operator: 'DoesNotExist' }, false],
    [{ key: 'gen', operator: 'Gt', values: ['4'] }, true],
    [{ key: 'gen', operator: 'Gt', values: ['5'] }, false],
    [{ key: 'gen', operator: 'Lt', values: ['6'] }, true],
    [{ key: 'gen', operator: 'Lt', values: ['5'] }, false],
    [{ key: 'gen', operator: 'Lt', values: ['-1'] }, false],
    [{ key: 'gen', operator: 'Gt', values: ['4', '3'] }, false],
    [{ key: 'zone', operator: 'Gt', values: ['1'] }, false],
    [{ key: 'missing', operator: 'Lt', values: ['1'] }, false],
  ])('%j on zone=x,gen=5,empty=: %s', (requirement, ok) => expect(matchesTerm({ matchExpressions: [requirement] }, labels)).toBe(ok));

  it('an empty term matches nothing', () => expect(matchesTerm({}, labels)).toBe(false));
});

describe('tolerations', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoExecute' } as const;
  it.each<[Toleration, boolean]>([
    [{ operator: 'Exists' }, true],
    [{ key: 'k', operator: 'Exists' }, true],
    [{ key: 'k', operator: 'Exists', effect: 'NoExecute' }, true],
    [{ key: 'k', value: 'v' }, true],
    [{ key: 'k', operator: 'Equal', value: 'v' }, true],
    [{ key: 'k', value: 'w' }, false],
    [{ key: 'k' }, false],
    [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, false],
    [{ key: 'other', operator: 'Exists' }, false],
  ])('%j tolerates k=v:NoExecute: %s', (toleration, ok) => expect(tolerates(toleration, taint)).toBe(ok));
});
