import { describe, expect, it } from 'vitest';
import { planStatefulSet, type StatefulSetAction, type StatefulSetPlanInput } from '../../../cloud/controllers/statefulset/index.js';
import type { ControllerRevision } from '../../../shared/daemonset-types.js';
import type { StatefulSet } from '../../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { Pod } from '../../../shared/types.js';
import { claimFor, pod, revisionOf, sts, T0 } from './fixtures.js';

const v1 = sts();
const rev1 = revisionOf(v1, 1);
const R1 = rev1.metadata.name!;
/** The same set after its image changed to nginx:2, its status still at revision 1. */
const v2 = (spec: Partial<StatefulSet['spec']> = {}): StatefulSet => ({ ...sts(spec, 'nginx:2'), status: { replicas: 3, currentRevision: R1, updateRevision: R1 } });
const rev2 = revisionOf(v2(), 2);
const R2 = rev2.metadata.name!;

function plan(set: StatefulSet, pods: Pod[], o: { revisions?: ControllerRevision[]; claims?: PersistentVolumeClaim[] } = {}): StatefulSetAction[] {
  const input: StatefulSetPlanInput = { sts: set, pods, revisions: o.revisions ?? [rev1], claims: o.claims ?? pods.map((p) => claimFor(Number(p.metadata.name!.slice('web-'.length)))), now: T0 + 60_000, timing: { timeScale: 1 } };
  return planStatefulSet(input);
}

/** The pod steps of a plan, as one line each. */
function podSteps(actions: StatefulSetAction[]): string[] {
  return actions.flatMap((a) => {
    if (a.type === 'create') return [`create ${a.pod.metadata.name} @${a.pod.metadata.labels!['controller-revision-hash'] === R1 ? 'R1' : 'R2'} claims ${a.claims.map((c) => c.metadata.name).join(',') || '-'}`];
    if (a.type === 'delete') return [`delete ${a.pod.metadata.name} (${a.why})`];
    if (a.type === 'createClaims') return [`claims ${a.claims.map((c) => c.metadata.name).join(',')} for ${a.pod.metadata.name}`];
    return [];
  });
}

const ready = (ordinal: number, revision = R1): Pod => pod(ordinal, { revision });
const pending = (ordinal: number, revision = R1): Pod => pod(ordinal, { revision, ready: false });

describe('planStatefulSet', () => {
  it.each<[string, StatefulSet, Pod[], string[], number[]?]>([
    ['OrderedReady creates web-0 (its claim first) and nothing more', v1, [], ['create web-0 @R1 claims www-web-0']],
    ['OrderedReady waits while web-0 is not Running and Ready', v1, [pending(0)], []],
    ['OrderedReady creates web-1 once web-0 is Ready', v1, [ready(0)], ['create web-1 @R1 claims www-web-1']],
    ['OrderedReady waits on a terminating web-1', v1, [ready(0), pod(1, { revision: R1, deleting: true })], []],
    ['Parallel creates every ordinal at once', sts({ podManagementPolicy: 'Parallel' }), [], ['create web-0 @R1 claims www-web-0', 'create web-1 @R1 claims www-web-1', 'create web-2 @R1 claims www-web-2']],
    ['ordinals.start shifts the names', sts({ replicas: 1, ordinals: { start: 5 } }), [], ['create web-5 @R1 claims www-web-5']],
    ['scale down deletes the highest ordinal only', sts({ replicas: 1 }), [ready(0), ready(1), ready(2)], ['delete web-2 (scaleDown)']],
    ['scale down waits for the terminating one', sts({ replicas: 1 }), [ready(0), ready(1), pod(2, { revision: R1, deleting: true })], []],
    ['scale down waits while a lower ordinal is unhealthy', sts({ replicas: 1 }), [pending(0), ready(1), ready(2)], []],
    ['Parallel scale down deletes every condemned pod', sts({ replicas: 1, podManagementPolicy: 'Parallel' }), [ready(0), ready(1), ready(2)], ['delete web-2 (scaleDown)', 'delete web-1 (scaleDown)']],
    ['a failed pod is deleted to come back under its name', v1, [ready(0), pod(1, { revision: R1, phase: 'Failed', ready: false })], ['delete web-1 (failed)']],
    ['a deleted pod comes back under its name, its claim kept', v1, [ready(0), ready(2)], ['create web-1 @R1 claims -'], [0, 1, 2]],
  ])('%s', (_name, set, pods, want, claims) => {
    expect(podSteps(plan(set, pods, { claims: claims?.map((o) => claimFor(o)) }))).toEqual(want);
  });

  it.each<[string, StatefulSet, Pod[], string[]]>([
    ['a new template first replaces the highest ordinal', v2(), [ready(0), ready(1), ready(2)], ['delete web-2 (update)']],
    ['then the next one down once it is Ready', v2(), [ready(0), ready(1), ready(2, R2)], ['delete web-1 (update)']],
    ['and waits while the replaced pod is not Ready', v2(), [ready(0), ready(1), pending(2, R2)], []],
    ['the replacement is created at the update revision', v2(), [ready(0), ready(1)], ['create web-2 @R2 claims -']],
    ['partition 2 keeps web-0 and web-1 at the current revision', v2({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }), [ready(0), ready(1), ready(2, R2)], []],
    ['below the partition a missing pod comes back at the current revision', v2({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }), [ready(0), ready(2, R2)], ['create web-1 @R1 claims -']],
    ['OnDelete replaces nothing', v2({ updateStrategy: { type: 'OnDelete' } }), [ready(0), ready(1), ready(2)], []],
    ['OnDelete recreates a deleted pod at the update revision', v2({ updateStrategy: { type: 'OnDelete' } }), [ready(0), ready(1)], ['create web-2 @R2 claims -']],
  ])('RollingUpdate: %s', (_name, set, pods, want) => {
    expect(podSteps(plan(set, pods, { revisions: [rev1, rev2], claims: [0, 1, 2].map((o) => claimFor(o)) }))).toEqual(want);
  });

  it('creates the pod with its stable identity, its claim mounted and the revision label', () => {
    const set = sts({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }], volumes: [{ name: 'www', emptyDir: {} }, { name: 'tmp', emptyDir: {} }] } } });
    const create = plan(set, [ready(0)], { revisions: [revisionOf(set, 1)] }).find((a) => a.type === 'create');
    if (create?.type !== 'create') throw new Error('no create');
    expect(create.pod.metadata).toMatchObject({
      name: 'web-1',
      labels: { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-1', 'apps.kubernetes.io/pod-index': '1', 'controller-revision-hash': revisionOf(set, 1).metadata.name },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }],
    });
    expect(create.pod.spec).toMatchObject({ hostname: 'web-1', subdomain: 'web', volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } }, { name: 'tmp', emptyDir: {} }] });
    expect(create.claims).toEqual([{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'www-web-1', namespace: 'default', labels: { app: 'web' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' } }]);
  });

  it('adopts an orphan named as one of its ordinals, and leaves a selected pod of another name alone', () => {
    const orphan = { ...ready(0), metadata: { ...ready(0).metadata, ownerReferences: undefined } };
    const stranger = { ...orphan, metadata: { ...orphan.metadata, name: 'other-0', uid: 'uid-other' } };
    const actions = plan(v1, [orphan, stranger]);
    expect(actions.flatMap((a) => (a.type === 'adopt' || a.type === 'release' ? [`${a.type} ${a.object.metadata.name}`] : []))).toEqual(['adopt web-0']);
    expect(podSteps(actions)).toEqual(['create web-1 @R1 claims www-web-1']);
  });

  it('waits for a claim still owned by an earlier pod of the ordinal before recreating it', () => {
    const stale = claimFor(1, { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: 'uid-old' }] });
    expect(podSteps(plan(v1, [ready(0)], { claims: [claimFor(0), stale] }))).toEqual([]);
  });

  it('persistentVolumeClaimRetentionPolicy: whenDeleted Delete owns new claims by the set; whenScaled Delete hands a condemned pod its claims', () => {
    const deleting = sts({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' } });
    const create = plan(deleting, []).find((a) => a.type === 'create');
    expect(create?.type === 'create' && create.claims[0]!.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web' }]);

    const scaled = sts({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' } });
    const actions = plan(scaled, [ready(0), ready(1), ready(2)]);
    const owners = actions.flatMap((a) => (a.type === 'claimOwners' ? [[a.claim.metadata.name, a.ownerReferences.map((r) => `${r.kind}/${r.name}`)]] : []));
    expect(owners).toEqual([['www-web-1', ['Pod/web-1']], ['www-web-2', ['Pod/web-2']]]);
    expect(actions.findIndex((a) => a.type === 'claimOwners')).toBeLessThan(actions.findIndex((a) => a.type === 'delete'));
  });

  it('status: counts per revision, and a finished RollingUpdate makes the update revision current', () => {
    const during = plan(v2(), [ready(0), ready(1), pending(2, R2)], { revisions: [rev1, rev2] }).find((a) => a.type === 'status');
    expect(during?.type === 'status' && during.status).toMatchObject({ replicas: 3, readyReplicas: 2, availableReplicas: 2, currentReplicas: 2, updatedReplicas: 1, currentRevision: R1, updateRevision: R2, observedGeneration: 1 });
    const done = plan(v2(), [ready(0, R2), ready(1, R2), ready(2, R2)], { revisions: [rev1, rev2] }).find((a) => a.type === 'status');
    expect(done?.type === 'status' && done.status).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: R2, updateRevision: R2 });
  });

  it('snapshots a new template as revision 2 named <set>-<hash>, and keeps only revisionHistoryLimit old ones', () => {
    const actions = plan(v2(), [ready(0), ready(1), ready(2)], { revisions: [rev1] });
    const created = actions.find((a) => a.type === 'createRevision');
    expect(created?.type === 'createRevision' && [created.revision.metadata.name, created.revision.revision]).toEqual([R2, 2]);
    const old = [revisionOf(sts({}, 'nginx:0'), 1), { ...rev1, revision: 2 }];
    const trimmed = plan({ ...v2({ revisionHistoryLimit: 0 }), status: { replicas: 3, currentRevision: R2 } }, [ready(0, R2), ready(1, R2), ready(2, R2)], { revisions: [...old, { ...rev2, revision: 3 }] });
    expect(trimmed.flatMap((a) => (a.type === 'deleteRevision' ? [a.revision.metadata.name] : []))).toEqual(old.map((r) => r.metadata.name));
  });
});
