import { describe, expect, it } from 'vitest';
import { findBestVolume, planClaim, planVolume, type VolumeAction } from '../../../cloud/controllers/persistentvolume/index.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../shared/storage-types.js';

const claim = (extra: Partial<PersistentVolumeClaim['spec']> = {}, annotations?: Record<string, string>, phase = 'Pending'): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default', uid: 'c-1', annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual', volumeMode: 'Filesystem', ...extra },
  status: { phase: phase as 'Pending' },
});
const volume = (name: string, extra: Partial<PersistentVolume['spec']> = {}, phase = 'Available', labels?: Record<string, string>): PersistentVolume => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, uid: `v-${name}`, labels },
  spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', volumeMode: 'Filesystem', hostPath: { path: '/x' }, persistentVolumeReclaimPolicy: 'Retain', ...extra },
  status: { phase: phase as 'Available' },
});
const sc = (mode: 'Immediate' | 'WaitForFirstConsumer', provisioner = 'kubernetes.io/no-provisioner'): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'manual' }, provisioner, volumeBindingMode: mode,
});
const claimRef = { namespace: 'default', name: 'data', uid: 'c-1' };
const summary = (actions: VolumeAction[]): string[] =>
  actions.map((a) => (a.type === 'event' ? `event ${a.reason}` : a.type === 'volumePhase' ? `volume ${a.phase}` : a.type === 'claimStatus' ? `claim ${a.phase}` : a.type));

describe('findBestVolume', () => {
  const cases: { name: string; claim: PersistentVolumeClaim; volumes: PersistentVolume[]; delay?: boolean; node?: string; want: string | undefined }[] = [
    { name: 'the smallest that fits', claim: claim(), volumes: [volume('big', { capacity: { storage: '10Gi' } }), volume('small', { capacity: { storage: '2Gi' } }), volume('tiny', { capacity: { storage: '500Mi' } })], want: 'small' },
    { name: 'not another class', claim: claim(), volumes: [volume('other', { storageClassName: 'fast' })], want: undefined },
    { name: 'not missing an access mode', claim: claim({ accessModes: ['ReadWriteMany'] }), volumes: [volume('rwo')], want: undefined },
    { name: 'not another volume mode', claim: claim({ volumeMode: 'Block' }), volumes: [volume('fs')], want: undefined },
    { name: 'not one claimed by another', claim: claim(), volumes: [volume('taken', { claimRef: { namespace: 'default', name: 'other' } })], want: undefined },
    { name: 'not one that is not Available', claim: claim(), volumes: [volume('released', {}, 'Released')], want: undefined },
    { name: 'one the selector matches', claim: claim({ selector: { matchLabels: { tier: 'gold' } } }), volumes: [volume('plain'), volume('gold', {}, 'Available', { tier: 'gold' })], want: 'gold' },
    { name: 'one pre-bound to the claim, before any other', claim: claim(), volumes: [volume('small', { capacity: { storage: '1Gi' } }), volume('mine', { claimRef: { namespace: 'default', name: 'data' }, capacity: { storage: '9Gi' } }, 'Available')], want: 'mine' },
    { name: 'late binding without a node: only a pre-bound one', claim: claim(), volumes: [volume('free')], delay: true, want: undefined },
    { name: 'late binding with a node: one that fits it', claim: claim(), delay: true, node: 'edge-2', want: 'on-2',
      volumes: [volume('on-1', { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['edge-1'] }] }] } } }),
        volume('on-2', { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['edge-2'] }] }] } } })] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = c.node ? { name: c.node, labels: { 'kubernetes.io/hostname': c.node } } : undefined;
      expect(findBestVolume(c.claim, c.volumes, { delayBinding: c.delay ?? false, node })?.metadata.name).toBe(c.want);
    });
  }
});

describe('planClaim', () => {
  const cases: { name: string; claim: PersistentVolumeClaim; volumes?: PersistentVolume[]; sc?: StorageClass; labels?: Record<string, string>; want: string[] }[] = [
    { name: 'Immediate: binds a matching volume, both ways', claim: claim(), volumes: [volume('pv1')], sc: sc('Immediate'), want: ['bindVolume', 'volume Bound', 'bindClaim', 'claim Bound'] },
    { name: 'WaitForFirstConsumer: waits for the first consumer', claim: claim({}, undefined, ''), volumes: [volume('pv1')], sc: sc('WaitForFirstConsumer'), want: ['claim Pending', 'event WaitForFirstConsumer'] },
    { name: 'WaitForFirstConsumer with a node picked: asks the provisioner', claim: claim({}, { 'volume.kubernetes.io/selected-node': 'edge-1' }), sc: sc('WaitForFirstConsumer', 'rancher.io/local-path'), want: ['annotateClaim', 'event ExternalProvisioning'] },
    { name: 'WaitForFirstConsumer with a node picked: binds a static volume on it', claim: claim({}, { 'volume.kubernetes.io/selected-node': 'edge-1' }), labels: { 'kubernetes.io/hostname': 'edge-1' },
      volumes: [volume('pv1', { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['edge-1'] }] }] } } })], sc: sc('WaitForFirstConsumer'), want: ['bindVolume', 'volume Bound', 'bindClaim', 'claim Bound'] },
    { name: 'a volume the provisioner made for it (claimRef with uid): bound without touching the claimRef', claim: claim({}, { 'volume.kubernetes.io/selected-node': 'edge-1' }),
      volumes: [volume('pvc-c-1', { claimRef }, 'Pending')], sc: sc('WaitForFirstConsumer', 'rancher.io/local-path'), want: ['volume Bound', 'bindClaim', 'claim Bound'] },
    { name: 'no class and no volume', claim: claim({ storageClassName: '' }), want: ['event FailedBinding'] },
    { name: 'a class that does not exist', claim: claim(), want: ['event ProvisioningFailed'] },
    { name: 'bound and complete: nothing', claim: { ...claim({ volumeName: 'pv1' }, { 'pv.kubernetes.io/bind-completed': 'yes' }), status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'] } },
      volumes: [volume('pv1', { claimRef }, 'Bound')], want: [] },
    { name: 'its volume gone: Lost', claim: claim({ volumeName: 'pv1' }, { 'pv.kubernetes.io/bind-completed': 'yes' }, 'Bound'), want: ['claim Lost', 'event ClaimLost'] },
    { name: 'naming a volume bound elsewhere', claim: claim({ volumeName: 'pv1' }), volumes: [volume('pv1', { claimRef: { namespace: 'default', name: 'other', uid: 'x' } }, 'Bound')], want: ['event FailedBinding'] },
    { name: 'naming a free volume: binds it', claim: claim({ volumeName: 'pv1' }), volumes: [volume('pv1')], want: ['bindVolume', 'volume Bound', 'bindClaim', 'claim Bound'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(summary(planClaim({ claim: c.claim, volumes: c.volumes ?? [], storageClass: c.sc, selectedNodeLabels: c.labels }))).toEqual(c.want);
    });
  }

  it('a bound claim takes the capacity and access modes of its volume', () => {
    const [status] = planClaim({ claim: claim({ volumeName: 'pv1' }, { 'pv.kubernetes.io/bind-completed': 'yes' }, 'Bound'), volumes: [volume('pv1', { claimRef }, 'Bound')], storageClass: undefined });
    expect(status).toMatchObject({ type: 'claimStatus', phase: 'Bound', volume: { metadata: { name: 'pv1' } } });
  });
});

describe('planVolume', () => {
  const bound = claim({ volumeName: 'pv1' }, undefined, 'Bound');
  const cases: { name: string; volume: PersistentVolume; claim?: PersistentVolumeClaim; want: string[] }[] = [
    { name: 'new and unclaimed: Available', volume: volume('pv1', {}, 'Pending'), want: ['volume Available'] },
    { name: 'pre-bound by name only: Available', volume: volume('pv1', { claimRef: { namespace: 'default', name: 'data' } }, 'Pending'), want: ['volume Available'] },
    { name: 'its claim bound to it: Bound', volume: volume('pv1', { claimRef }, 'Available'), claim: bound, want: ['volume Bound'] },
    { name: 'its claim being bound: waits', volume: volume('pv1', { claimRef }, 'Available'), claim: claim(), want: [] },
    { name: 'its claim gone: Released', volume: volume('pv1', { claimRef }, 'Bound'), want: ['volume Released'] },
    { name: 'its claim replaced (another uid): Released', volume: volume('pv1', { claimRef }, 'Bound'), claim: { ...bound, metadata: { ...bound.metadata, uid: 'c-2' } }, want: ['volume Released'] },
    { name: 'Released, Retain: stays', volume: volume('pv1', { claimRef }, 'Released'), want: [] },
    { name: 'Released, Delete, provisioned: left to its provisioner', volume: { ...volume('pv1', { claimRef, persistentVolumeReclaimPolicy: 'Delete' }, 'Released'), metadata: { name: 'pv1', annotations: { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' } } }, want: [] },
    { name: 'Released, Delete, made by hand: Failed', volume: volume('pv1', { claimRef, persistentVolumeReclaimPolicy: 'Delete' }, 'Released'), want: ['volume Failed', 'event VolumeFailedDelete'] },
    { name: 'its claim went to another volume: unbound when this controller bound it', volume: { ...volume('pv1', { claimRef }, 'Bound'), metadata: { name: 'pv1', annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes' } } },
      claim: claim({ volumeName: 'pv2' }), want: ['unbindVolume', 'volume Available'] },
  ];
  for (const c of cases) it(c.name, () => expect(summary(planVolume(c.volume, c.claim))).toEqual(c.want));
});
