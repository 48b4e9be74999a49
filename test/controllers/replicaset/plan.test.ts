import { describe, expect, it } from 'vitest';
import { planReplicaSet, podFromTemplate, type ReplicaSetAction, type ReplicaSetPlanInput } from '../../../cloud/controllers/replicaset/plan.js';
import { podsToDelete } from '../../../cloud/controllers/replicaset/rank.js';
import type { ReplicaSet } from '../../../shared/apps-types.js';
import type { Pod } from '../../../shared/types.js';
import { nodes, pod, rs, T0 } from './fixtures.js';

const plan = (input: Partial<ReplicaSetPlanInput> & { rs: ReplicaSet; pods: Pod[] }): ReplicaSetAction[] =>
  planReplicaSet({ nodes: new Map(), expectationsSatisfied: true, now: T0 + 100_000, timing: { timeScale: 1 }, ...input });

/** The create/delete/adopt/release decisions, by pod name, without the status. */
function decisions(actions: ReplicaSetAction[]): string[] {
  return actions.flatMap((a) => {
    if (a.type === 'create') return [`create ${a.count}`];
    if (a.type === 'delete') return [`delete ${a.pods.map((p) => p.metadata.name).join(',')}`];
    if (a.type === 'adopt' || a.type === 'release') return [`${a.type} ${a.pod.metadata.name}`];
    return [];
  });
}

const statusOf = (actions: ReplicaSetAction[]) => actions.find((a) => a.type === 'status')?.status;

describe('planReplicaSet', () => {
  const web = rs('web', 3);
  const cases: { name: string; rs: ReplicaSet; pods: Pod[]; satisfied?: boolean; want: string[] }[] = [
    { name: 'creates the missing pods', rs: web, pods: [pod('a', { readyAt: 0 })], want: ['create 2'] },
    { name: 'does nothing at the desired count', rs: web, pods: [pod('a'), pod('b'), pod('c')], want: [] },
    { name: 'deletes the surplus', rs: rs('web', 1), pods: [pod('a', { readyAt: 0, createdAt: 1 }), pod('b', { readyAt: 0, createdAt: 2 })], want: ['delete b'] },
    {
      name: 'adopts a matching orphan, which counts toward replicas',
      rs: web, pods: [pod('a'), pod('b'), pod('orphan', { owner: null })], want: ['adopt orphan'],
    },
    {
      name: 'ignores pods that do not match or that another controller owns',
      rs: web,
      pods: [pod('a'), pod('stranger', { owner: null, labels: { app: 'db' } }), pod('theirs', { owner: 'uid-other' })],
      want: ['create 2'],
    },
    {
      name: 'releases an owned pod whose labels no longer match, and replaces it',
      rs: web, pods: [pod('a'), pod('b'), pod('relabeled', { labels: { app: 'debug' } })], want: ['release relabeled', 'create 1'],
    },
    {
      name: 'does not count terminal or terminating pods',
      rs: web,
      pods: [pod('a'), pod('done', { phase: 'Succeeded' }), pod('failed', { phase: 'Failed' }), pod('going', { deleting: true })],
      want: ['create 2'],
    },
    { name: 'waits while earlier creations or deletions are not seen yet', rs: web, pods: [pod('a')], satisfied: false, want: [] },
    {
      name: 'neither creates nor adopts for a ReplicaSet being deleted',
      rs: { ...web, metadata: { ...web.metadata, deletionTimestamp: new Date(T0).toISOString() } },
      pods: [pod('orphan', { owner: null })],
      want: [],
    },
    { name: 'creates at most a burst (500) per pass', rs: rs('web', 600), pods: [], want: ['create 500'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(decisions(plan({ rs: c.rs, pods: c.pods, expectationsSatisfied: c.satisfied ?? true }))).toEqual(c.want);
    });
  }

  it('reports replicas, fully labeled, ready and available (after minReadySeconds) and wakes up when the next becomes available', () => {
    const slow = rs('web', 4, { minReadySeconds: 30 });
    const now = T0 + 100_000;
    const pods = [
      pod('long-ready', { readyAt: 10 }),
      pod('just-ready', { readyAt: 80 }),
      pod('not-ready'),
      pod('partial-labels', { labels: { app: 'web' }, readyAt: 90 }),
    ];
    const actions = planReplicaSet({ rs: slow, pods, nodes: new Map(), expectationsSatisfied: true, now, timing: { timeScale: 1 } });
    expect(statusOf(actions)).toEqual({ replicas: 4, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 1, observedGeneration: 1 });
    // just-ready (ready at 80 s) becomes available at 110 s: 10 s from now.
    expect(actions.find((a) => a.type === 'requeueAfter')).toEqual({ type: 'requeueAfter', ms: 10_000 });
    const faster = planReplicaSet({ rs: slow, pods, nodes: new Map(), expectationsSatisfied: true, now, timing: { timeScale: 10 } });
    expect(statusOf(faster)?.availableReplicas).toBe(3);
  });

  it('writes status only when it changed', () => {
    const seen = { ...web, status: { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 } };
    expect(statusOf(plan({ rs: seen, pods: [pod('a'), pod('b'), pod('c')] }))).toBeUndefined();
    const newer = { ...seen, metadata: { ...seen.metadata, generation: 2 } };
    expect(statusOf(plan({ rs: newer, pods: [pod('a'), pod('b'), pod('c')] }))).toMatchObject({ observedGeneration: 2 });
  });

  it('builds pods from the template, named after and controlled by the ReplicaSet', () => {
    const created = podFromTemplate(web);
    expect(created.metadata).toEqual({
      generateName: 'web-',
      namespace: 'default',
      labels: { app: 'web', tier: 'front' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
    });
    expect(created.spec).toEqual(web.spec.template.spec);
    expect(created.spec).not.toBe(web.spec.template.spec);
  });
});

describe('scale-down ranking', () => {
  it('deletes pods on NotReady/Unknown nodes first, then unscheduled, pending, not ready, then the newest', () => {
    const pods = [
      pod('ready-old', { node: 'good', readyAt: 5, createdAt: 1 }),
      pod('ready-new', { node: 'good', readyAt: 5, createdAt: 3 }),
      pod('not-ready', { node: 'good', createdAt: 1 }),
      pod('pending', { node: 'good', phase: 'Pending', createdAt: 1 }),
      pod('unscheduled', { phase: 'Pending', createdAt: 1 }),
      pod('on-unknown-node', { node: 'lost', readyAt: 5, createdAt: 1 }),
      pod('on-notready-node', { node: 'sick', readyAt: 5, createdAt: 0 }),
    ];
    const health = nodes({ good: 'True', lost: 'Unknown', sick: 'False' });
    const order = podsToDelete(pods, health, pods.length).map((p) => p.metadata.name);
    expect(order.slice(0, 2).sort()).toEqual(['on-notready-node', 'on-unknown-node']);
    expect(order.slice(2)).toEqual(['unscheduled', 'pending', 'not-ready', 'ready-new', 'ready-old']);
    expect(podsToDelete(pods, health, 1).map((p) => p.metadata.name)).toEqual([order[0]]);
    expect(podsToDelete(pods, health, 0)).toEqual([]);
  });

  it('among ready pods prefers the one ready for less time, then more restarts', () => {
    const pods = [pod('steady', { node: 'n', readyAt: 1 }), pod('fresh', { node: 'n', readyAt: 50 }), pod('crashy', { node: 'n', readyAt: 1, restarts: 4 })];
    expect(podsToDelete(pods, nodes({ n: 'True' }), 3).map((p) => p.metadata.name)).toEqual(['fresh', 'crashy', 'steady']);
  });

  it('is what the plan deletes when scaling down', () => {
    const pods = [pod('ready', { node: 'good', readyAt: 5 }), pod('unscheduled', { phase: 'Pending' }), pod('on-sick', { node: 'sick', readyAt: 5 })];
    const actions = plan({ rs: rs('web', 1), pods, nodes: nodes({ good: 'True', sick: 'False' }) });
    expect(decisions(actions)).toEqual(['delete on-sick,unscheduled']);
  });
});
