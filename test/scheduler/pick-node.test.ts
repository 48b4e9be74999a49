import { describe, expect, it } from 'vitest';
import { feasibleNodesToFind, fitSignature, pickNode, unschedulableMessage } from '../../cloud/scheduler/pick-node.js';
import { PodPlacement, podRequests } from '../../cloud/scheduler/pod-placement.js';
import { asking, infos, node, pod } from './fixtures.js';

const named = (count: number, options: Parameters<typeof node>[1] = {}) => Array.from({ length: count }, (_, i) => node(`n${String(i).padStart(3, '0')}`, options));

describe('feasibleNodesToFind (kube-scheduler adaptive percentageOfNodesToScore)', () => {
  it.each([
    [0, 0],
    [50, 50],
    [99, 99],
    [100, 100], // 50% of 100 is below the minimum of 100
    [250, 120], // 48%
    [300, 144], // 48%
    [1000, 420], // 42%
    [5000, 500], // 10%
    [6000, 300], // 50 − 48 = 2%, raised to 5%
    [20000, 1000], // 5%
  ])('%i nodes: %i', (nodes, want) => expect(feasibleNodesToFind(nodes)).toBe(want));
});

describe('pickNode stops filtering once enough nodes are feasible', () => {
  // Every node but the last holds one pod: the last is the best, if it is looked at.
  const all = named(300);
  const nodes = infos(all, Object.fromEntries(all.slice(0, 299).map((n) => [n.metadata.name!, 1])));

  it('looks at 144 of 300 nodes from the start it is given, and scores only those', () => {
    expect(pickNode(pod(), nodes, { start: 0 })).toMatchObject({ node: 'n000', processed: 144 });
    expect(pickNode(pod(), nodes, { start: 150 })).toMatchObject({ node: 'n150', processed: 144 });
    expect(pickNode(pod(), nodes, { start: 156 })).toMatchObject({ node: 'n299', processed: 144 });
  });

  it('wraps around the end of the list', () => {
    expect(pickNode(pod(), nodes, { start: 290 })).toMatchObject({ node: 'n299', processed: 144 });
    expect(pickNode(pod(), nodes, { start: 300 + 10 })).toMatchObject({ node: 'n010', processed: 144 });
  });

  it('counts the nodes filtered out as processed too', () => {
    const mixed = [...named(50, { unschedulable: true }), ...named(250).map((n, i) => node(`m${String(i).padStart(3, '0')}`))];
    expect(pickNode(pod(), infos(mixed), { start: 0 })).toMatchObject({ node: 'm000', processed: 50 + 144 });
  });

  it('looks at every node when none fits, and counts each one in the message', () => {
    const pick = pickNode(asking('5'), nodes, { start: 123 });
    expect(pick).toMatchObject({ node: undefined, nodes: 300, processed: 300 });
    if (pick.node === undefined) expect(unschedulableMessage(pick.nodes, pick.reasons)).toBe('0/300 nodes are available: 300 Insufficient cpu.');
  });

  it('below 100 nodes, looks at all of them', () => {
    const few = named(99);
    const onAllButLast = Object.fromEntries(few.slice(0, 98).map((n) => [n.metadata.name!, 1]));
    expect(pickNode(pod(), infos(few, onAllButLast), { start: 5 })).toMatchObject({ node: 'n098', processed: 99 });
  });
});

describe('pickNode and node usage', () => {
  it('counts assumed pods through the live usage its nodes hold, without walking pods', () => {
    const placement = new PodPlacement();
    const nodes = infos([node('a', { allocatable: { cpu: '1', memory: '1Gi', pods: '110' } })], placement);
    const p = asking('600m');
    expect(pickNode(p, nodes).node).toBe('a');
    placement.set('default/p1', 'a', podRequests(p));
    expect(pickNode(p, nodes)).toMatchObject({ node: undefined, nodes: 1, reasons: new Map([['Insufficient cpu', 1]]) });
  });

  it('uses the requests it is given rather than parsing the pod again', () => {
    const requests = { cpu: 5000, memory: 0, nonZeroCpu: 5000, nonZeroMemory: 0 };
    expect(pickNode(pod(), infos([node('a')]), { requests }).node).toBeUndefined();
  });
});

describe('unschedulableMessage', () => {
  it('sorts the "count reason" strings bytewise, as Go sort.Strings', () => {
    const reasons = new Map([['node(s) were unschedulable', 2], ['Insufficient memory', 2], ['Insufficient cpu', 10]]);
    expect(unschedulableMessage(14, reasons)).toBe('0/14 nodes are available: 10 Insufficient cpu, 2 Insufficient memory, 2 node(s) were unschedulable.');
  });

  it('with no nodes at all', () => expect(unschedulableMessage(0, new Map())).toBe('no nodes available to schedule pods'));
});

describe('fitSignature', () => {
  it('ignores heartbeats but not readiness, taints or allocatable', () => {
    const a = node('a');
    const beat = { ...a, status: { ...a.status, conditions: a.status!.conditions!.map((c) => ({ ...c, lastHeartbeatTime: 'later' })) } };
    expect(fitSignature(beat)).toBe(fitSignature(a));
    expect(fitSignature(node('a', { ready: 'False' }))).not.toBe(fitSignature(a));
    expect(fitSignature(node('a', { taints: [{ key: 'k', effect: 'NoSchedule' }] }))).not.toBe(fitSignature(a));
    expect(fitSignature(node('a', { allocatable: { cpu: '8', memory: '8Gi', pods: '110' } }))).not.toBe(fitSignature(a));
  });
});
