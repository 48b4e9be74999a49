import { describe, expect, it } from 'vitest';
import { basePathFor, localPathVolume, needsVolume, shouldDelete } from '../../cloud/controllers/local-path/index.js';
import type { ConfigMap } from '../../shared/config-types.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../shared/storage-types.js';

const localPath: StorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'local-path' }, provisioner: 'rancher.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' };
const other: StorageClass = { ...localPath, metadata: { name: 'nfs' }, provisioner: 'example.com/nfs' };
const claim = (annotations: Record<string, string> | undefined, extra: Partial<PersistentVolumeClaim['spec']> = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'shop', uid: 'u-1', resourceVersion: '7', annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'local-path', ...extra },
});
const picked = { 'volume.kubernetes.io/selected-node': 'edge-2' };
const config = (json: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'local-path-config', namespace: 'local-path-storage' }, data: { 'config.json': json } });

describe('the local-path provisioner', () => {
  const cases: { name: string; claim: PersistentVolumeClaim; sc?: StorageClass; exists?: boolean; want: boolean }[] = [
    { name: 'provisions a claim of its class once the scheduler picked a node', claim: claim(picked), sc: localPath, want: true },
    { name: 'waits for the node', claim: claim(undefined), sc: localPath, want: false },
    { name: 'leaves other provisioners\' classes', claim: claim(picked), sc: other, want: false },
    { name: 'leaves a claim whose class does not exist', claim: claim(picked), want: false },
    { name: 'does not provision twice', claim: claim(picked), sc: localPath, exists: true, want: false },
    { name: 'leaves a bound claim', claim: claim(picked, { volumeName: 'pv1' }), sc: localPath, want: false },
  ];
  for (const c of cases) it(c.name, () => expect(needsVolume(c.claim, c.sc, c.exists ? ({} as PersistentVolume) : undefined)).toBe(c.want));

  it('makes upstream\'s volume: pvc-<uid>, a hostPath directory under the base path, pinned to the node, bound to the claim', () => {
    expect(localPathVolume(claim(picked), localPath, '/opt/local-path-provisioner')).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-u-1', annotations: { 'local.path.provisioner/selected-node': 'edge-2', 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' } },
      spec: {
        persistentVolumeReclaimPolicy: 'Delete',
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
        capacity: { storage: '2Gi' },
        hostPath: { path: '/opt/local-path-provisioner/pvc-u-1_shop_data', type: 'DirectoryOrCreate' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['edge-2'] }] }] } },
        claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'shop', name: 'data', uid: 'u-1', resourceVersion: '7' },
        storageClassName: 'local-path',
      },
    });
  });

  it('reads the base path from local-path-config\'s nodePathMap: the node\'s entry, else the default one, else /opt/local-path-provisioner', () => {
    const map = config(JSON.stringify({ nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: ['/data/'] }, { node: 'edge-2', paths: ['/ssd', '/hdd'] }] }));
    expect(basePathFor(map, 'edge-2')).toBe('/ssd');
    expect(basePathFor(map, 'edge-1')).toBe('/data');
    expect(basePathFor(undefined, 'edge-1')).toBe('/opt/local-path-provisioner');
    expect(basePathFor(config('{not json'), 'edge-1')).toBe('/opt/local-path-provisioner');
    expect(basePathFor(config(JSON.stringify({ nodePathMap: [{ node: 'edge-1', paths: ['relative'] }] })), 'edge-1')).toBe('/opt/local-path-provisioner');
  });

  it('deletes a released volume it made whose policy is Delete, and nothing else', () => {
    const made = localPathVolume(claim(picked), localPath, '/opt/local-path-provisioner');
    expect(shouldDelete({ ...made, status: { phase: 'Released' } })).toBe(true);
    expect(shouldDelete({ ...made, status: { phase: 'Bound' } })).toBe(false);
    expect(shouldDelete({ ...made, spec: { ...made.spec, persistentVolumeReclaimPolicy: 'Retain' }, status: { phase: 'Released' } })).toBe(false);
    expect(shouldDelete({ ...made, metadata: { name: 'pv1' }, status: { phase: 'Released' } })).toBe(false);
  });
});
