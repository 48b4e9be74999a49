import { describe, expect, it } from 'vitest';
import { podTemplateHash } from '../../../cloud/controllers/deployment/hash.js';
import type { Deployment, DeploymentStatus, ReplicaSet } from '../../../shared/apps-types.js';
import type { Pod } from '../../../shared/types.js';
import { at, condition, deployment, NOW, ownedRS, plan, statusOf, T0, writes } from './fixtures.js';

describe('planDeployment: a new Deployment', () => {
  it('creates <name>-<hash> with the hash label, selector and revision 1, owned by the Deployment', () => {
    const d = deployment();
    const actions = plan(d, []);
    const create = actions.find((a) => a.type === 'createReplicaSet')!;
    const rs = create.rs;
    const hash = podTemplateHash(d.spec.template);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs.metadata).toMatchObject({
      name: `web-${hash}`,
      namespace: 'default',
      labels: { app: 'web', 'pod-template-hash': hash },
      annotations: { 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
    });
    expect(rs.spec).toMatchObject({ replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } } });
    expect(rs.spec.template.metadata!.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(actions).toContainEqual({ type: 'event', eventType: 'Normal', reason: 'ScalingReplicaSet', message: `Scaled up replica set web-${hash} from 0 to 3` });
    expect(actions).toContainEqual({ type: 'annotateDeployment', annotations: { 'deployment.kubernetes.io/revision': '1' } });
    const status = statusOf(actions)!;
    expect(status).toMatchObject({ observedGeneration: 1, replicas: 0, updatedReplicas: 0, availableReplicas: 0, unavailableReplicas: 3 });
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "web-${hash}"` });
    expect(condition(status, 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
  });

  it('hashes stably, ignoring defaults the apiserver adds and key order, but not the image', () => {
    const t = deployment().spec.template;
    const defaulted = { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'Always' as const, containers: [{ image: 'hello:1', name: 'app', imagePullPolicy: 'IfNotPresent' }] } };
    expect(podTemplateHash(defaulted)).toBe(podTemplateHash(t));
    // What `kubectl rollout undo` sends back: Go's zero values, and the hash label of the old ReplicaSet.
    const fromUndo = { metadata: { creationTimestamp: null, labels: { app: 'web', 'pod-template-hash': 'abc' } }, spec: { containers: [{ name: 'app', image: 'hello:1', resources: {} }] } };
    expect(podTemplateHash(fromUndo as never)).toBe(podTemplateHash(t));
    expect(podTemplateHash(deployment({ image: 'hello:2' }).spec.template)).not.toBe(podTemplateHash(t));
    expect(podTemplateHash(t, 1)).not.toBe(podTemplateHash(t));
  });

  it('adopts a matching orphan ReplicaSet', () => {
    const d = deployment();
    const orphan = ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 });
    orphan.metadata.ownerReferences = undefined;
    expect(writes(plan(d, [orphan]))).toEqual([`adoptReplicaSet ${orphan.metadata.name}`]);
  });
});

describe('planDeployment: Recreate', () => {
  const recreateD = (image: string) => deployment({ image, strategy: { type: 'Recreate' } });
  const podOf = (rs: ReplicaSet, phase: 'Running' | 'Succeeded' = 'Running'): Pod => ({
    metadata: { name: `${rs.metadata.name}-x`, namespace: 'default', labels: rs.spec.template.metadata!.labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true }] },
    spec: { containers: [] },
    status: { phase },
  });

  it('scales every old ReplicaSet to 0 before anything else', () => {
    const d = recreateD('hello:2');
    expect(writes(plan(d, [ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 }), ownedRS(d, { image: 'hello:0', replicas: 1, revision: 0 })]))).toEqual(['scale hello:0 1→0', 'scale hello:1 3→0']);
  });

  it('waits while old pods remain (counted, or still listed), then creates the new ReplicaSet at full size', () => {
    const d = recreateD('hello:2');
    const draining = ownedRS(d, { image: 'hello:1', replicas: 0, actual: 2, revision: 1 });
    expect(writes(plan(d, [draining]))).toEqual([]);
    const drained = ownedRS(d, { image: 'hello:1', replicas: 0, actual: 0, revision: 1 });
    expect(writes(plan(d, [drained], [podOf(drained)]))).toEqual([]);
    expect(writes(plan(d, [drained], [podOf(drained, 'Succeeded')]))).toEqual(['create hello:2=3']);
    expect(writes(plan(d, [drained]))).toEqual(['create hello:2=3']);
  });
});

describe('planDeployment: history and conditions', () => {
  it('deletes the oldest idle ReplicaSets beyond revisionHistoryLimit once the rollout is complete', () => {
    const done: DeploymentStatus = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 3 };
    const d = deployment({ image: 'hello:4', revisionHistoryLimit: 1, status: done });
    const sets = [
      ownedRS(d, { image: 'hello:1', replicas: 0, revision: 1 }),
      ownedRS(d, { image: 'hello:2', replicas: 0, actual: 1, revision: 2 }), // still has a pod: kept
      ownedRS(d, { image: 'hello:3', replicas: 0, revision: 3 }),
      ownedRS(d, { image: 'hello:4', replicas: 3, revision: 4 }),
    ];
    expect(writes(plan(d, sets))).toEqual(['delete hello:1']);
    expect(writes(plan({ ...d, status: { ...done, availableReplicas: 2 } }, sets))).toEqual([]);
  });

  it('reports a complete rollout: NewReplicaSetAvailable and MinimumReplicasAvailable', () => {
    const d = deployment({ generation: 2 });
    const rs = ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 });
    const status = statusOf(plan(d, [rs]))!;
    expect(status).toMatchObject({ observedGeneration: 2, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 0 });
    expect(condition(status, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.` });
    // Applied, the same pass changes nothing more.
    const again = plan({ ...d, status, metadata: { ...d.metadata, annotations: { 'deployment.kubernetes.io/revision': '1' } } }, [rs]);
    expect(again).toEqual([]);
  });

  it('times out a rollout that made no progress for progressDeadlineSeconds (scaled by the timing profile)', () => {
    const stuck = (lastUpdate: number): Deployment => {
      const d = deployment({ image: 'hello:2' });
      const progressing = { type: 'Progressing', status: 'True' as const, reason: 'ReplicaSetUpdated', message: 'x', lastUpdateTime: at(lastUpdate), lastTransitionTime: at(lastUpdate) };
      return { ...d, metadata: { ...d.metadata, annotations: { 'deployment.kubernetes.io/revision': '2' } }, status: { ...statusAfterWait(d), conditions: [progressing] } };
    };
    const sets = (d: Deployment) => [ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 }), ownedRS(d, { image: 'hello:2', replicas: 1, available: 0, actual: 1, revision: 2 })];
    const before = plan(stuck(500), sets(stuck(500)), [], T0 + 1_000_000);
    expect(condition(statusOf(before), 'Progressing')).toMatchObject({ reason: 'ReplicaSetUpdated' });
    const late = stuck(1_000_000 / 1000 - 601);
    const after = plan(late, sets(late));
    expect(condition(statusOf(after), 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded', message: expect.stringContaining('has timed out progressing') });
    const fast = stuck(1_000_000 / 1000 - 61);
    expect(condition(statusOf(plan(fast, sets(fast), [], NOW, 10)), 'Progressing')).toMatchObject({ reason: 'ProgressDeadlineExceeded' });
  });

  it('wakes up just after the deadline when a rollout is not moving', () => {
    const d = { ...deployment({ image: 'hello:2' }), metadata: { ...deployment().metadata, annotations: { 'deployment.kubernetes.io/revision': '2' } } };
    const sets = [ownedRS(d, { image: 'hello:1', replicas: 3, revision: 1 }), ownedRS(d, { image: 'hello:2', replicas: 1, available: 0, actual: 1, revision: 2 })];
    const status = statusOf(plan(d, sets))!;
    const lastUpdate = at(1_000_000 / 1000 - 100);
    status.conditions = status.conditions!.map((c) => (c.type === 'Progressing' ? { ...c, lastUpdateTime: lastUpdate } : c));
    expect(plan({ ...d, status }, sets)).toEqual([{ type: 'requeueAfter', ms: 501_000 }]);
  });
});

/** The counts a Deployment shows while its new pod is not available (3 old + 1 new). */
function statusAfterWait(_d: Deployment): DeploymentStatus {
  return { observedGeneration: 1, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 1 };
}
