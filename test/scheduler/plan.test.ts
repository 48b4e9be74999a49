import { describe, expect, it } from 'vitest';
import { afterBindingFailure, makesRoom, pendingKeys, planNodeEvent, planPodEvent, planSchedule, UNSCHEDULABLE_BACKOFF } from '../../cloud/scheduler/plan.js';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import { KedgeError } from '../../shared/errors.js';
import type { Node, Pod, PodSpec } from '../../shared/types.js';
import { asking, infos, node, pod } from './fixtures.js';

const withUid = (p: Pod, uid = 'u1'): Pod => ({ ...p, metadata: { ...p.metadata, uid } });
const on = (nodeName: string, spec: Partial<PodSpec> = {}): Pod => withUid(pod({ nodeName, ...spec }));
const done = (p: Pod): Pod => ({ ...p, status: { phase: 'Succeeded' } });
const statusOnly = (p: Pod): Pod => ({ ...p, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] } });
const relabeled = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, labels: { app: 'new' } } });
const pending = withUid(pod());

describe('planPodEvent', () => {
  const cases: { name: string; event: CacheEvent<Pod>; known?: Pod; assumedNode?: string; want: ReturnType<typeof planPodEvent> }[] = [
    { name: 'SYNCED: nothing', event: { type: 'SYNCED' }, want: { type: 'ignore' } },
    { name: 'a known pod deleted: removed', event: { type: 'DELETED', object: pending }, known: pending, want: { type: 'remove' } },
    { name: 'an older pod of the same name deleted: ignored', event: { type: 'DELETED', object: withUid(pod(), 'old') }, known: pending, want: { type: 'ignore' } },
    { name: 'an unknown pod deleted: ignored', event: { type: 'DELETED', object: pending }, want: { type: 'ignore' } },
    { name: 'a new pending pod: stored on no node, queued', event: { type: 'ADDED', object: pending }, want: { type: 'store', pod: pending, node: undefined, queue: true } },
    { name: 'a bound pod: takes room on its node, not queued', event: { type: 'ADDED', object: on('a') }, want: { type: 'store', pod: on('a'), node: 'a', queue: false } },
    { name: 'a finished pod takes no room', event: { type: 'ADDED', object: done(on('a')) }, want: { type: 'store', pod: done(on('a')), node: undefined, queue: false } },
    { name: 'a pod of another scheduler: not queued', event: { type: 'ADDED', object: withUid(pod({ schedulerName: 'other' })) }, want: { type: 'store', pod: withUid(pod({ schedulerName: 'other' })), node: undefined, queue: false } },
    { name: 'a status change alone does not cut the backoff short', event: { type: 'MODIFIED', old: pending, object: statusOnly(pending) }, want: { type: 'store', pod: statusOnly(pending), node: undefined, queue: false } },
    { name: 'a label change queues the pod again', event: { type: 'MODIFIED', old: pending, object: relabeled(pending) }, want: { type: 'store', pod: relabeled(pending), node: undefined, queue: true } },
    { name: 'a pod whose binding is being written stays on the assumed node', event: { type: 'MODIFIED', old: pending, object: relabeled(pending) }, assumedNode: 'b', want: { type: 'store', pod: { ...relabeled(pending), spec: { ...pending.spec, nodeName: 'b' } }, node: 'b', queue: false } },
    { name: 'the watch showing another node wins over the assumed one', event: { type: 'MODIFIED', old: pending, object: on('c') }, assumedNode: 'b', want: { type: 'store', pod: on('c'), node: 'c', queue: false } },
  ];
  it.each(cases)('$name', ({ event, known, assumedNode, want }) => {
    expect(planPodEvent(event, { known, assumedNode, schedulerName: 'default-scheduler' })).toEqual(want);
  });
});

describe('planNodeEvent', () => {
  const a = node('a');
  const heartbeat: Node = { ...a, status: { ...a.status, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:10Z' }] } };
  const cases: { name: string; event: CacheEvent<Node>; known: boolean; want: ReturnType<typeof planNodeEvent> }[] = [
    { name: 'SYNCED: nothing', event: { type: 'SYNCED' }, known: true, want: 'ignore' },
    { name: 'a new node is stored', event: { type: 'ADDED', object: a }, known: false, want: 'store' },
    { name: 'a heartbeat of a known node is ignored', event: { type: 'MODIFIED', old: a, object: heartbeat }, known: true, want: 'ignore' },
    { name: 'a heartbeat of a node not yet known stores it', event: { type: 'MODIFIED', old: a, object: heartbeat }, known: false, want: 'store' },
    { name: 'a node becoming not ready is stored again', event: { type: 'MODIFIED', old: a, object: node('a', { ready: 'False' }) }, known: true, want: 'store' },
    { name: 'a node cordoned is stored again', event: { type: 'MODIFIED', old: a, object: node('a', { unschedulable: true }) }, known: true, want: 'store' },
    { name: 'a relabeled node is stored again', event: { type: 'MODIFIED', old: a, object: node('a', { labels: { zone: 'x' } }) }, known: true, want: 'store' },
    { name: 'a deleted node is removed', event: { type: 'DELETED', object: a }, known: true, want: 'remove' },
  ];
  it.each(cases)('$name', ({ event, known, want }) => expect(planNodeEvent(event, known)).toBe(want));
});

describe('makesRoom: when unschedulable pods are retried at once', () => {
  it.each([
    [undefined, undefined, false],
    [undefined, 'a', false], // bound: takes room
    ['a', 'a', false], // updated in place
    ['a', undefined, true], // deleted, finished or unassumed
    ['a', 'b', true],
  ] as const)('from %s to %s: %s', (was, now, want) => expect(makesRoom(was, now)).toBe(want));
});

describe('pendingKeys', () => {
  it('lists the unbound pods of this scheduler that are neither finished nor being deleted', () => {
    const deleting = withUid({ ...pod(), metadata: { ...pod().metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const pods: [string, Pod][] = [['ns/p', pending], ['ns/bound', on('a')], ['ns/other', withUid(pod({ schedulerName: 'other' }))], ['ns/done', done(pending)], ['ns/deleting', deleting]];
    expect(pendingKeys(pods, 'default-scheduler')).toEqual(['ns/p']);
    expect(pendingKeys(pods, 'other')).toEqual(['ns/other']);
  });
});

describe('planSchedule', () => {
  const two = infos([node('a'), node('b')], { a: 1 });
  const cases: { name: string; pod: Pod | undefined; nodes: ReturnType<typeof infos>; start?: number; want: ReturnType<typeof planSchedule> }[] = [
    { name: 'a pod gone is dropped', pod: undefined, nodes: two, start: 1, want: { action: { type: 'drop' }, nextStart: 1 } },
    { name: 'a bound pod is dropped', pod: on('a'), nodes: two, want: { action: { type: 'drop' }, nextStart: 0 } },
    { name: 'a pod of another scheduler is dropped', pod: pod({ schedulerName: 'other' }), nodes: two, want: { action: { type: 'drop' }, nextStart: 0 } },
    { name: 'no nodes at all', pod: pending, nodes: [], start: 3, want: { action: { type: 'unschedulable', message: 'no nodes available to schedule pods' }, nextStart: 0 } },
    {
      name: 'no node fits: why, per node',
      pod: asking('6'),
      nodes: infos([node('a'), node('b', { ready: 'False' })]),
      want: { action: { type: 'unschedulable', message: '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were not ready.' }, nextStart: 0 },
    },
    { name: 'the least loaded node; the next pick starts after the nodes looked at', pod: pending, nodes: two, start: 1, want: { action: { type: 'bind', node: 'b', requests: expect.anything() }, nextStart: 1 } },
    { name: 'the pod\'s requests go with the binding', pod: asking('500m', '1Gi'), nodes: two, want: { action: { type: 'bind', node: 'b', requests: { cpu: 500, memory: 1024 ** 3, nonZeroCpu: 500, nonZeroMemory: 1024 ** 3 } }, nextStart: 0 } },
  ];
  it.each(cases)('$name', ({ pod: p, nodes, start = 0, want }) => {
    expect(planSchedule({ pod: p, schedulerName: 'default-scheduler', nodes, start })).toEqual(want);
  });

  it('goes round robin: each pick starts where the previous one stopped filtering (150 nodes, 100 looked at)', () => {
    // The first 100 nodes hold a pod each: a pick that looked at the last 50 would take one of those.
    const all = Array.from({ length: 150 }, (_, i) => node(`n${String(i).padStart(3, '0')}`));
    const nodes = infos(all, Object.fromEntries(all.slice(0, 100).map((n) => [n.metadata.name!, 1])));
    const first = planSchedule({ pod: pending, schedulerName: 'default-scheduler', nodes, start: 0 });
    expect(first).toMatchObject({ action: { node: 'n000' }, nextStart: 100 });
    expect(planSchedule({ pod: pending, schedulerName: 'default-scheduler', nodes, start: first.nextStart })).toMatchObject({ action: { node: 'n100' }, nextStart: 50 });
  });

  it('takes the requests from the caller\'s cache when given one', () => {
    const cached = { cpu: 7, memory: 7, nonZeroCpu: 7, nonZeroMemory: 7 };
    expect(planSchedule({ pod: pending, schedulerName: 'default-scheduler', nodes: two, start: 0, requestsOf: () => cached }).action).toMatchObject({ requests: cached });
  });
});

describe('after a failed binding', () => {
  it.each([
    ['the pod is gone: done', new KedgeError('NotFound', 'pods "p" not found'), 'forget'],
    ['a conflict: retried after the backoff', new KedgeError('Conflict', 'already bound'), 'retry'],
    ['the store down: retried after the backoff', new KedgeError('Unavailable', 'store down'), 'retry'],
    ['anything else: retried after the backoff', new Error('socket hang up'), 'retry'],
  ] as const)('%s', (_name, err, want) => expect(afterBindingFailure(err)).toBe(want));

  it('an unschedulable pod is retried after 1 s doubling to 10 s (kube-scheduler)', () => {
    expect(UNSCHEDULABLE_BACKOFF).toEqual({ minMs: 1_000, maxMs: 10_000 });
  });
});
