import { describe, expect, it } from 'vitest';
import { planBudgetStatus, type ControllerOf } from '../../../cloud/controllers/disruption/index.js';
import type { PodDisruptionBudget, PodDisruptionBudgetSpec } from '../../../shared/cluster-object-types.js';
import type { Pod } from '../../../shared/types.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const TIMEOUT = 120_000;

const budget = (spec: Partial<PodDisruptionBudgetSpec>, status?: PodDisruptionBudget['status']): PodDisruptionBudget => ({
  metadata: { name: 'web', namespace: 'default', generation: 2 },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
  ...(status && { status }),
});

const pod = (name: string, o: { ready?: boolean; deleting?: boolean; owner?: string } = {}): Pod => ({
  metadata: {
    name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' },
    ...(o.deleting && { deletionTimestamp: '2026-01-01T00:09:00Z' }),
    ...(o.owner && { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: o.owner, uid: o.owner, controller: true }] }),
  },
  spec: { containers: [] },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
});

const scaleOf = (replicas: number): ControllerOf => (p) => (p.metadata.ownerReferences?.[0] ? { uid: p.metadata.ownerReferences[0].uid, replicas } : undefined);
const none: ControllerOf = () => undefined;
const counts = (pdb: PodDisruptionBudget, pods: Pod[], controllerOf = none) => {
  const s = planBudgetStatus(pdb, pods, controllerOf, NOW, TIMEOUT).status!;
  return [s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed];
};

describe('planBudgetStatus', () => {
  const cases: { name: string; pdb: PodDisruptionBudget; pods: Pod[]; controllerOf?: ControllerOf; want: number[] }[] = [
    { name: 'minAvailable 2 of 3 ready: one disruption', pdb: budget({ minAvailable: 2 }), pods: [pod('a'), pod('b'), pod('c')], want: [3, 2, 3, 1] },
    { name: 'an unready or deleting pod is not healthy', pdb: budget({ minAvailable: 1 }), pods: [pod('a'), pod('b', { ready: false }), pod('c', { deleting: true })], want: [3, 1, 1, 0] },
    { name: 'maxUnavailable 1 of a controller of 4', pdb: budget({ maxUnavailable: 1 }), pods: ['a', 'b', 'c', 'd'].map((n) => pod(n, { owner: 'rs' })), controllerOf: scaleOf(4), want: [4, 3, 4, 1] },
    { name: 'minAvailable 50% of 3 rounds up', pdb: budget({ minAvailable: '50%' }), pods: ['a', 'b', 'c'].map((n) => pod(n, { owner: 'rs' })), controllerOf: scaleOf(3), want: [3, 2, 3, 1] },
    { name: 'neither set: nothing allowed', pdb: budget({}), pods: [pod('a')], want: [0, 0, 1, 0] },
  ];
  for (const c of cases) it(c.name, () => expect(counts(c.pdb, c.pods, c.controllerOf)).toEqual(c.want));

  it('writes observedGeneration and DisruptionAllowed True SufficientPods or False InsufficientPods', () => {
    expect(planBudgetStatus(budget({ minAvailable: 1 }), [pod('a'), pod('b')], none, NOW, TIMEOUT).status).toMatchObject({
      observedGeneration: 2, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: '2026-01-01T00:10:00Z' }],
    });
    expect(planBudgetStatus(budget({ minAvailable: 2 }), [pod('a')], none, NOW, TIMEOUT).status?.conditions).toMatchObject([{ status: 'False', reason: 'InsufficientPods' }]);
  });

  it('fails safe when a pod has no controller with a scale (maxUnavailable)', () => {
    expect(planBudgetStatus(budget({ maxUnavailable: 1 }), [pod('a')], none, NOW, TIMEOUT).status).toMatchObject({
      disruptionsAllowed: 0, conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "a"' }],
    });
  });

  it('keeps an eviction entry until its pod is deleted or the timeout passes, not counting the pod healthy meanwhile', () => {
    const recent = '2026-01-01T00:09:30Z';
    const pdb = budget({ minAvailable: 1 }, { disruptedPods: { a: recent, gone: recent, b: '2026-01-01T00:07:00Z' }, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const plan = planBudgetStatus(pdb, [pod('a'), pod('b'), pod('c')], none, NOW, TIMEOUT);
    expect(plan.status).toMatchObject({ disruptedPods: { a: recent }, currentHealthy: 2, disruptionsAllowed: 1 });
    expect(plan.status?.disruptedPods).not.toHaveProperty('b');
    expect(plan.recheckAt).toBe(Date.parse(recent) + TIMEOUT);
  });

  it('writes nothing when the status is already what it would write', () => {
    const first = planBudgetStatus(budget({ minAvailable: 1 }), [pod('a'), pod('b')], none, NOW, TIMEOUT).status;
    expect(planBudgetStatus(budget({ minAvailable: 1 }, first), [pod('a'), pod('b')], none, NOW + 60_000, TIMEOUT)).toEqual({});
  });
});
