import { describe, expect, it } from 'vitest';
import type { DeploymentAction } from '../../../cloud/controllers/deployment/plan.js';
import { maxUnavailable, resolveFenceposts } from '../../../cloud/controllers/deployment/surge.js';
import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { condition, deployment, imageOf, ownedRS, plan, rolling, statusOf, writes, type DeploymentOptions } from './fixtures.js';

describe('maxSurge and maxUnavailable', () => {
  const cases: [replicas: number, surge: number | string, unavailable: number | string, want: { surge: number; unavailable: number }][] = [
    [10, '25%', '25%', { surge: 3, unavailable: 2 }], // surge rounds up, unavailable down
    [3, '25%', '25%', { surge: 1, unavailable: 0 }],
    [1, '25%', '25%', { surge: 1, unavailable: 0 }],
    [4, 0, '0%', { surge: 0, unavailable: 1 }], // both 0: one pod may be unavailable
    [10, 2, '50%', { surge: 2, unavailable: 5 }],
    [0, '25%', '25%', { surge: 0, unavailable: 1 }],
  ];
  for (const [replicas, surge, unavailable, want] of cases) {
    it(`${replicas} replicas, maxSurge ${surge}, maxUnavailable ${unavailable}`, () => {
      expect(resolveFenceposts(deployment({ replicas, strategy: rolling(surge, unavailable) }))).toEqual(want);
    });
  }
  it('caps maxUnavailable at the replicas, and is 0 for Recreate', () => {
    expect(maxUnavailable(deployment({ replicas: 2, strategy: rolling(1, 5) }))).toBe(2);
    expect(maxUnavailable(deployment({ strategy: { type: 'Recreate' } }))).toBe(0);
  });
});

describe('planDeployment: RollingUpdate steps', () => {
  /** Old ReplicaSet hello:1 and new hello:2, [spec, available] each; what one pass writes. */
  const cases: { name: string; d: DeploymentOptions; old: [number, number]; next?: [number, number]; want: string[] }[] = [
    { name: 'starts the new ReplicaSet within maxSurge, and spends maxUnavailable on the old one', d: { replicas: 4 }, old: [4, 4], want: ['create hello:2=1', 'scale hello:1 4→3'] },
    { name: 'only surges when no pod may be unavailable', d: { replicas: 4, strategy: rolling(1, 0) }, old: [4, 4], want: ['create hello:2=1'] },
    { name: 'scales old down while the new pod is not yet available: within maxUnavailable', d: { replicas: 4 }, old: [4, 4], next: [1, 0], want: ['scale hello:1 4→3'] },
    { name: 'waits when neither surge nor unavailability is left', d: { replicas: 4, strategy: rolling(1, 0) }, old: [4, 4], next: [1, 0], want: [] },
    { name: 'scales the new one up as the old one shrinks', d: { replicas: 4 }, old: [3, 3], next: [1, 1], want: ['scale hello:2 1→2'] },
    { name: 'finishes by scaling the old one to 0', d: { replicas: 4 }, old: [1, 1], next: [4, 4], want: ['scale hello:1 1→0'] },
    { name: 'maxSurge 0: starts at 0 and makes room by scaling old down first', d: { replicas: 3, strategy: rolling(0, 1) }, old: [3, 3], want: ['create hello:2=0', 'scale hello:1 3→2'] },
    { name: 'maxSurge 100%, maxUnavailable 0: the whole new set at once, old kept', d: { replicas: 3, strategy: rolling('100%', 0) }, old: [3, 3], want: ['create hello:2=3'] },
    { name: 'removes unavailable old pods first', d: { replicas: 3, strategy: rolling(1, 1) }, old: [3, 1], next: [1, 0], want: ['scale hello:1 3→2'] },
    { name: 'keeps minAvailable when old pods are unhealthy and unavailability is spent', d: { replicas: 3, strategy: rolling(1, 0) }, old: [3, 1], next: [1, 0], want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = deployment({ image: 'hello:2', ...c.d });
      const sets = [ownedRS(d, { image: 'hello:1', replicas: c.old[0], available: c.old[1], revision: 1 })];
      if (c.next) sets.push(ownedRS(d, { image: 'hello:2', replicas: c.next[0], available: c.next[1], revision: 2 }));
      expect(writes(plan(d, sets))).toEqual(c.want);
    });
  }

  it('walks a whole rollout to the new ReplicaSet, never beyond surge nor below minAvailable', () => {
    let d = deployment({ image: 'hello:2', replicas: 4 });
    let sets = [ownedRS(d, { image: 'hello:1', replicas: 4, revision: 1 })];
    for (let pass = 0; pass < 20; pass++) {
      const actions = plan(d, sets);
      const status = statusOf(actions);
      if (status) d = { ...d, status };
      sets = applyToSets(d, sets, actions);
      const total = sets.reduce((n, rs) => n + rs.spec.replicas!, 0);
      const available = sets.reduce((n, rs) => n + rs.status!.availableReplicas!, 0);
      expect(total).toBeLessThanOrEqual(5);
      expect(available).toBeGreaterThanOrEqual(3);
      if (writes(actions).length === 0 && !status) break;
    }
    expect(sets.map((rs) => [imageOf(rs), rs.spec.replicas])).toEqual([['hello:1', 0], ['hello:2', 4]]);
    expect(condition(d.status, 'Progressing')).toMatchObject({ reason: 'NewReplicaSetAvailable' });
  });

  it('scales a finished Deployment up within maxSurge (3 → 5)', () => {
    const d = deployment({ replicas: 5 });
    expect(writes(plan(d, [ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 })]))).toEqual(['scale hello:1 3→5']);
  });

  it('gives the ReplicaSet of a template rolled back to the newest revision', () => {
    const d = deployment({ image: 'hello:1' });
    const back = ownedRS(d, { image: 'hello:1', replicas: 0, revision: 1 });
    const actions = plan(d, [back, ownedRS(d, { image: 'hello:2', replicas: 3, revision: 2 })]);
    const annotate = actions.find((a) => a.type === 'updateReplicaSet' && imageOf(a.rs) === 'hello:1');
    expect(annotate).toMatchObject({ annotations: { 'deployment.kubernetes.io/revision': '3' } });
    expect(actions).toContainEqual({ type: 'annotateDeployment', annotations: { 'deployment.kubernetes.io/revision': '3' } });
  });

  it('does not roll out a paused Deployment', () => {
    const d = deployment({ image: 'hello:2', paused: true });
    const actions = plan(d, [ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 })]);
    expect(writes(actions)).toEqual([]);
    expect(condition(statusOf(actions), 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused' });
  });
});

/** Applies scale writes to the sets and lets their pods become available at once (a perfect ReplicaSet controller). */
function applyToSets(d: Deployment, sets: ReplicaSet[], actions: DeploymentAction[]): ReplicaSet[] {
  let out = sets.map((rs) => structuredClone(rs));
  for (const a of actions) {
    if (a.type === 'createReplicaSet') out.push(ownedRS(d, { image: imageOf(a.rs), replicas: a.rs.spec.replicas!, available: 0, revision: 2 }));
    if (a.type === 'updateReplicaSet') out = out.map((rs) => (rs.metadata.name === a.rs.metadata.name ? { ...rs, spec: { ...rs.spec, replicas: a.replicas } } : rs));
  }
  return out.map((rs) => ({ ...rs, status: { replicas: rs.spec.replicas!, readyReplicas: rs.spec.replicas!, availableReplicas: rs.spec.replicas!, observedGeneration: 1 } }));
}

