import { describe, expect, it } from 'vitest';
import { fitSignature, matchesTerm, pickNode, tolerates, unschedulableMessage, type NodeAffinity, type NodeSelectorRequirement } from '../../cloud/scheduler/pick-node.js';
import { PodPlacement, podRequests } from '../../cloud/scheduler/pod-placement.js';
import type { Node, Pod, PodSpec, Taint } from '../../shared/types.js';

interface NodeOptions {
  ready?: 'True' | 'False' | 'Unknown' | 'none';
  unschedulable?: boolean;
  taints?: Taint[];
  labels?: Record<string, string>;
  allocatable?: Record<string, string> | null;
}
const ALLOCATABLE = { cpu: '4', memory: '8Gi', pods: '110' };
const node = (name: string, o: NodeOptions = {}): Node => ({
  metadata: { name, ...(o.labels ? { labels: o.labels } : {}) },
  spec: { ...(o.unschedulable ? { unschedulable: true } : {}), ...(o.taints ? { taints: o.taints } : {}) },
  status: {
    ...(o.allocatable === null ? {} : { allocatable: o.allocatable ?? ALLOCATABLE }),
    conditions: o.ready === 'none' ? [] : [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: o.ready ?? 'True' }],
  },
});
const pod = (spec: Partial<PodSpec> = {}): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c' }], ...spec } });
/** A pod requesting the given cpu and memory (either may be left out). */
const asking = (cpu?: string, memory?: string, spec: Partial<PodSpec> = {}): Pod =>
  pod({ containers: [{ name: 'c', resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } }], ...spec });
const withAffinity = (nodeAffinity: NodeAffinity, spec: Partial<PodSpec> = {}): Pod => pod({ affinity: { nodeAffinity }, ...spec });
/** Node usage as the scheduler keeps it: the pods on each node, summed by PodPlacement. */
const placed = (pods: Partial<Record<string, Pod[] | number>> = {}) => {
  const placement = new PodPlacement();
  for (const [name, list = []] of Object.entries(pods)) {
    const each = typeof list === 'number' ? Array.from({ length: list }, () => pod()) : list;
    each.forEach((p, i) => placement.set(`${name}/${i}`, name, podRequests(p)));
  }
  return placement.usage;
};
const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' } as const;
const required = (...terms: NodeSelectorRequirement[][]): NodeAffinity => ({
  requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) },
});

type Case = { name: string; pod: Pod; nodes: Node[]; on?: Parameters<typeof placed>[0]; want: string | undefined; why?: string };

describe('pickNode: filters', () => {
  it.each<Case>([
    { name: 'no nodes', pod: pod(), nodes: [], want: undefined, why: 'no nodes available to schedule pods' },
    { name: 'one ready node', pod: pod(), nodes: [node('a')], want: 'a' },
    { name: 'NodeReady: not ready is filtered', pod: pod(), nodes: [node('a', { ready: 'False' }), node('b', { ready: 'Unknown' }), node('c', { ready: 'none' })], want: undefined, why: '0/3 nodes are available: 3 node(s) were not ready.' },
    { name: 'NodeUnschedulable: cordoned is filtered', pod: pod(), nodes: [node('a', { unschedulable: true }), node('b')], on: { b: 9 }, want: 'b' },
    { name: 'NodeUnschedulable: reason', pod: pod(), nodes: [node('a', { unschedulable: true })], want: undefined, why: '0/1 nodes are available: 1 node(s) were unschedulable.' },
    { name: 'NodeUnschedulable: tolerated', pod: pod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }), nodes: [node('a', { unschedulable: true })], want: 'a' },
    { name: 'NodeUnschedulable: a NoExecute toleration is not enough', pod: pod({ tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] }), nodes: [node('a', { unschedulable: true })], want: undefined },
    { name: 'NodeAffinity: nodeSelector must match', pod: pod({ nodeSelector: { zone: 'x' } }), nodes: [node('a'), node('b', { labels: { zone: 'x' } })], on: { b: 5 }, want: 'b' },
    { name: 'NodeAffinity: reason', pod: pod({ nodeSelector: { zone: 'x' } }), nodes: [node('a', { labels: { zone: 'y' } })], want: undefined, why: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." },
    { name: 'NodeAffinity: required terms are ORed', pod: withAffinity(required([{ key: 'zone', operator: 'In', values: ['x'] }], [{ key: 'gpu', operator: 'Exists' }])), nodes: [node('a'), node('b', { labels: { gpu: '' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: expressions are ANDed', pod: withAffinity(required([{ key: 'zone', operator: 'In', values: ['x'] }, { key: 'gpu', operator: 'Exists' }])), nodes: [node('a', { labels: { zone: 'x' } }), node('b', { labels: { zone: 'x', gpu: '1' } })], on: { b: 3 }, want: 'b' },
    { name: 'NodeAffinity: selector and required affinity both apply', pod: withAffinity(required([{ key: 'gpu', operator: 'Exists' }]), { nodeSelector: { zone: 'x' } }), nodes: [node('a', { labels: { gpu: '' } }), node('b', { labels: { zone: 'x' } })], want: undefined },
    { name: 'NodeAffinity: matchFields metadata.name', pod: withAffinity({ requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] }] } }), nodes: [node('a'), node('b')], on: { b: 4 }, want: 'b' },
    { name: 'TaintToleration: untolerated NoSchedule', pod: pod(), nodes: [node('a', { taints: [unreachable] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.' },
    { name: 'TaintToleration: untolerated NoExecute, with its value', pod: pod(), nodes: [node('a', { taints: [{ key: 'k', value: 'v', effect: 'NoExecute' }] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {k: v}.' },
    { name: 'TaintToleration: tolerated', pod: pod({ tolerations: [{ key: unreachable.key, operator: 'Exists' }] }), nodes: [node('a', { taints: [unreachable] })], want: 'a' },
    { name: 'TaintToleration: PreferNoSchedule does not filter', pod: pod(), nodes: [node('a', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] })], want: 'a' },
    { name: 'TaintToleration comes before NodeReady', pod: pod(), nodes: [node('a', { ready: 'Unknown', taints: [unreachable] })], want: undefined, why: '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.' },
    { name: 'NodeResourcesFit: requests fit exactly', pod: asking('1', '2Gi'), nodes: [node('a')], on: { a: [asking('3', '6Gi')] }, want: 'a' },
    { name: 'NodeResourcesFit: Insufficient cpu', pod: asking('1001m'), nodes: [node('a')], on: { a: [asking('3')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient cpu.' },
    { name: 'NodeResourcesFit: Insufficient memory', pod: asking(undefined, '500M'), nodes: [node('a', { allocatable: { cpu: '4', memory: '1Gi', pods: '110' } })], on: { a: [asking('1', '600Mi')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient memory.' },
    { name: 'NodeResourcesFit: every short resource is a reason', pod: asking('2', '5Gi'), nodes: [node('a'), node('b')], on: { a: [asking('3', '4Gi')], b: [asking('3')] }, want: undefined, why: '0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.' },
    { name: 'NodeResourcesFit: Too many pods', pod: pod(), nodes: [node('a', { allocatable: { cpu: '4', memory: '8Gi', pods: '2' } })], on: { a: 2 }, want: undefined, why: '0/1 nodes are available: 1 Too many pods.' },
    { name: 'NodeResourcesFit: no allocatable holds no pods', pod: pod(), nodes: [node('a', { allocatable: null })], want: undefined, why: '0/1 nodes are available: 1 Too many pods.' },
    { name: 'NodeResourcesFit: a pod requesting nothing fits a full node', pod: pod(), nodes: [node('a')], on: { a: [asking('4', '8Gi')] }, want: 'a' },
    { name: 'NodeResourcesFit: the largest init container counts', pod: asking('1', undefined, { initContainers: [{ name: 'i', resources: { requests: { cpu: '3500m' } } }] }), nodes: [node('a')], on: { a: [asking('1')] }, want: undefined, why: '0/1 nodes are available: 1 Insufficient cpu.' },
    { name: 'NodeResourcesFit: plain bytes', pod: asking(undefined, '1073741824'), nodes: [node('a', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } })], want: 'a' },
    {
      name: 'reasons counted per node and sorted as kube-scheduler sorts them',
      pod: asking('2'),
      nodes: [node('a', { taints: [unreachable] }), node('b'), node('c')],
      on: { b: [asking('3')], c: [asking('2500m')] },
      want: undefined,
      why: '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.',
    },
  ])('$name', ({ pod: p, nodes, on, want, why }) => {
    const pick = pickNode(p, nodes, placed(on));
    expect(pick.node).toBe(want);
    if (why) {
      expect(pick.node).toBeUndefined();
      if (pick.node === undefined) expect(unschedulableMessage(pick.nodes, pick.reasons)).toBe(why);
    }
  });
});

describe('pickNode: scores', () => {
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
    { name: 'TaintToleration: fewer intolerable PreferNoSchedule taints win', pod: pod(), nodes: [node('a', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }), node('b', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }, { key: 'l', effect: 'PreferNoSchedule' }] }), node('c', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] })], on: { a: 10, b: 0, c: 8 }, want: 'c' },
    { name: 'TaintToleration: a tolerated PreferNoSchedule taint costs nothing', pod: pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'PreferNoSchedule' }] }), nodes: [node('a', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }), node('b')], on: { b: 1 }, want: 'a' },
    { name: 'TaintToleration: a NoSchedule toleration does not tolerate PreferNoSchedule', pod: pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] }), nodes: [node('a', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }), node('b')], on: { b: 1 }, want: 'b' },
  ])('$name', ({ pod: p, nodes, on, want }) => expect(pickNode(p, nodes, placed(on)).node).toBe(want));

  it('counts assumed pods through the usage it is given, without walking pods', () => {
    const placement = new PodPlacement();
    const nodes = [node('a', { allocatable: { cpu: '1', memory: '1Gi', pods: '110' } })];
    const p = asking('600m');
    expect(pickNode(p, nodes, placement.usage).node).toBe('a');
    placement.set('default/p1', 'a', podRequests(p));
    expect(pickNode(p, nodes, placement.usage)).toMatchObject({ node: undefined, nodes: 1, reasons: new Map([['Insufficient cpu', 1]]) });
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
    [{ key: 'gen', operator: 'Lt', values: ['-1'] }, false],
    [{ key: 'gen', operator: 'Gt', values: ['4', '3'] }, false],
    [{ key: 'zone', operator: 'Gt', values: ['1'] }, false],
    [{ key: 'missing', operator: 'Lt', values: ['1'] }, false],
  ])('%j on zone=x,gen=5,empty=: %s', (requirement, ok) => expect(matchesTerm({ matchExpressions: [requirement] }, labels)).toBe(ok));

  it('an empty term matches nothing', () => expect(matchesTerm({}, labels)).toBe(false));
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

describe('unschedulableMessage', () => {
  it('sorts the "count reason" strings bytewise, as Go sort.Strings', () => {
    const reasons = new Map([['node(s) were unschedulable', 2], ['Insufficient memory', 2], ['Insufficient cpu', 10]]);
    expect(unschedulableMessage(14, reasons)).toBe('0/14 nodes are available: 10 Insufficient cpu, 2 Insufficient memory, 2 node(s) were unschedulable.');
  });
});

describe('fitSignature', () => {
  it('ignores heartbeats but not readiness or allocatable', () => {
    const a = node('a');
    const beat = { ...a, status: { ...a.status, conditions: a.status!.conditions!.map((c) => ({ ...c, lastHeartbeatTime: 'later' })) } };
    expect(fitSignature(beat)).toBe(fitSignature(a));
    expect(fitSignature(node('a', { ready: 'False' }))).not.toBe(fitSignature(a));
    expect(fitSignature(node('a', { allocatable: { cpu: '8', memory: '8Gi', pods: '110' } }))).not.toBe(fitSignature(a));
  });
});
