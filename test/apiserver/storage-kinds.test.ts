import { describe, expect, it } from 'vitest';
import { ensureDefaultStorageClass } from '../../cloud/apiserver/kinds/bootstrap.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../shared/storage-types.js';
import { ADMIN_TOKEN, apiFixture } from '../support/api-fixture.js';
import type { StatusBody as Status, TableBody as Table } from '../support/api-shapes.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const pvs = '/api/v1/persistentvolumes';
const pvcs = '/api/v1/namespaces/default/persistentvolumeclaims';
const classes = '/apis/storage.k8s.io/v1/storageclasses';

const volume = (name: string, spec: Partial<PersistentVolume['spec']> = {}): PersistentVolume => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, ...spec },
});
const claim = (name: string, spec: Partial<PersistentVolumeClaim['spec']> = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const storageClass = (name: string, extra: Partial<StorageClass> = {}): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/nfs', ...extra,
});

async function fixture() {
  const f = await apiFixture();
  await ensureDefaultStorageClass(f.api.loopback(ADMIN_TOKEN));
  return f;
}

describe('PersistentVolumes', () => {
  it('default to Retain, Filesystem and phase Pending, whatever status the body had', async () => {
    const f = await fixture();
    const created = await f.json<PersistentVolume>('POST', pvs, { body: { ...volume('pv1'), status: { phase: 'Bound' } } });
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    expect(created.body.status).toEqual({ phase: 'Pending' });
  });

  it('need access modes, a storage capacity and exactly one volume source, worded as kube', async () => {
    const f = await fixture();
    const empty = await f.json<Status>('POST', pvs, { body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'e' }, spec: {} } });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toBe('PersistentVolume "e" is invalid: [spec.accessModes: Required value, spec.capacity: Required value, spec: Required value: must specify a volume type]');
    const bad = await f.json<Status>('POST', pvs, { body: volume('b', { accessModes: ['ReadWriteSometimes' as never], capacity: { storage: '0' }, nfs: { server: 'x', path: '/' } }) });
    expect(bad.body.message).toBe(
      'PersistentVolume "b" is invalid: [spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod", ' +
        'spec.capacity[storage]: Invalid value: "0": must be greater than zero, spec.nfs: Forbidden: may not specify more than 1 volume type]',
    );
  });

  it('keep their volume source', async () => {
    const f = await fixture();
    const created = await f.json<PersistentVolume>('POST', pvs, { body: volume('pv1') });
    const moved = await f.json<Status>('PUT', `${pvs}/pv1`, { body: { ...created.body, spec: { ...created.body.spec, hostPath: { path: '/elsewhere' } } } });
    expect(moved.status).toBe(422);
    expect(moved.body.message).toBe('PersistentVolume "pv1" is invalid: spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation');
  });

  it('print as kubectl get pv does', async () => {
    const f = await fixture();
    await f.json('POST', pvs, { body: volume('pv1', { accessModes: ['ReadWriteMany', 'ReadWriteOnce'], storageClassName: 'manual', claimRef: { namespace: 'default', name: 'data' } }) });
    await f.clock.advance(30_000);
    const table = await f.json<Table>('GET', pvs, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([['pv1', '5Gi', 'RWO,RWX', 'Retain', 'Pending', 'default/data', 'manual', '<unset>', '', '30s', 'Filesystem']]);
  });
});

describe('PersistentVolumeClaims', () => {
  it('get the default class when they name none, keep "" (no class) and a class they name', async () => {
    const f = await fixture();
    const defaulted = await f.json<PersistentVolumeClaim>('POST', pvcs, { body: claim('a') });
    expect(defaulted.body.spec).toMatchObject({ storageClassName: 'local-path', volumeMode: 'Filesystem' });
    expect(defaulted.body.status).toEqual({ phase: 'Pending' });
    expect((await f.json<PersistentVolumeClaim>('POST', pvcs, { body: claim('b', { storageClassName: '' }) })).body.spec.storageClassName).toBe('');
    expect((await f.json<PersistentVolumeClaim>('POST', pvcs, { body: claim('c', { storageClassName: 'fast' }) })).body.spec.storageClassName).toBe('fast');
  });

  it('get no class when no class is the default', async () => {
    const f = await apiFixture();
    expect((await f.json<PersistentVolumeClaim>('POST', pvcs, { body: claim('a') })).body.spec.storageClassName).toBeUndefined();
  });

  it('need access modes and a storage request', async () => {
    const f = await fixture();
    const empty = await f.json<Status>('POST', pvcs, { body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'e' }, spec: {} } });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toBe('PersistentVolumeClaim "e" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]');
    const pod = await f.json<Status>('POST', pvcs, { body: claim('p', { accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }) });
    expect(pod.body.message).toBe('PersistentVolumeClaim "p" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes');
  });

  it('keep their spec, but for volumeName set once and, once bound, a growing storage request', async () => {
    const f = await fixture();
    const created = (await f.json<PersistentVolumeClaim>('POST', pvcs, { body: claim('data') })).body;
    const put = (spec: Partial<PersistentVolumeClaim['spec']>, from = created) => f.json<PersistentVolumeClaim & Status>('PUT', `${pvcs}/data`, { body: { ...from, spec: { ...from.spec, ...spec } } });
    const modes = await put({ accessModes: ['ReadWriteMany'] });
    expect(modes.status).toBe(422);
    expect(modes.body.message).toBe('PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
    expect((await put({ resources: { requests: { storage: '2Gi' } } })).status).toBe(422);
    const named = await put({ volumeName: 'pv1' });
    expect(named.status).toBe(200);
    expect((await put({ volumeName: 'pv2' }, named.body)).status).toBe(422);
    const bound = await f.json<PersistentVolumeClaim>('PATCH', `${pvcs}/data/status`, { body: { status: { phase: 'Bound' } }, contentType: 'application/merge-patch+json' });
    expect((await put({ resources: { requests: { storage: '2Gi' } } }, bound.body)).status).toBe(200);
    const shrunk = await f.json<Status>('PATCH', `${pvcs}/data`, { body: { spec: { resources: { requests: { storage: '1Gi' } } } }, contentType: 'application/merge-patch+json' });
    expect(shrunk.body.message).toBe('PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than previous value');
  });

  it('print as kubectl get pvc does: capacity and access modes only once bound', async () => {
    const f = await fixture();
    await f.json('POST', pvcs, { body: claim('waiting') });
    await f.json('POST', pvcs, { body: claim('bound', { volumeName: 'pv1', storageClassName: 'manual' }) });
    await f.json('PATCH', `${pvcs}/bound/status`, { body: { status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'] } }, contentType: 'application/merge-patch+json' });
    await f.clock.advance(90_000);
    const table = await f.json<Table>('GET', pvcs, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([
      ['bound', 'Bound', 'pv1', '5Gi', 'RWO', 'manual', '<unset>', '90s', 'Filesystem'],
      ['waiting', 'Pending', '', '', '', 'local-path', '<unset>', '90s', 'Filesystem'],
    ]);
  });
});

describe('StorageClasses (storage.k8s.io/v1)', () => {
  it('local-path exists from the start as the default; ensureDefaultStorageClass leaves an edited one alone', async () => {
    const f = await fixture();
    const sc = (await f.json<StorageClass>('GET', `${classes}/local-path`)).body;
    expect(sc).toMatchObject({ provisioner: 'rancher.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer', metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } });
    await f.json('PUT', `${classes}/local-path`, { body: { ...sc, metadata: { ...sc.metadata, annotations: {} } } });
    await ensureDefaultStorageClass(f.api.loopback(ADMIN_TOKEN));
    expect((await f.json<StorageClass>('GET', `${classes}/local-path`)).body.metadata.annotations).toEqual({});
  });

  it('default to Delete and Immediate, and keep provisioner, parameters, reclaimPolicy and volumeBindingMode', async () => {
    const f = await fixture();
    const created = await f.json<StorageClass>('POST', classes, { body: storageClass('nfs', { parameters: { server: 'a' } }) });
    expect(created.body).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const changed = await f.json<Status>('PUT', `${classes}/nfs`, {
      body: { ...created.body, provisioner: 'example.com/other', parameters: { server: 'b' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' },
    });
    expect(changed.body.message).toBe(
      'StorageClass "nfs" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., ' +
        'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable]',
    );
    const labelled = await f.json<StorageClass>('PUT', `${classes}/nfs`, { body: { ...created.body, metadata: { ...created.body.metadata, labels: { tier: 'slow' } } } });
    expect(labelled.status).toBe(200);
    const bad = await f.json<Status>('POST', classes, { body: storageClass('bad', { provisioner: '', reclaimPolicy: 'Recycle' }) });
    expect(bad.body.message).toBe('StorageClass "bad" is invalid: [provisioner: Required value, reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"]');
  });

  it('print as kubectl get sc does, with (default) after the default class', async () => {
    const f = await fixture();
    await f.json('POST', classes, { body: storageClass('nfs', { allowVolumeExpansion: true }) });
    await f.clock.advance(60_000);
    const table = await f.json<Table>('GET', classes, { accept: tableAccept });
    expect(table.body.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    expect(table.body.rows.map((r) => r.cells)).toEqual([
      ['local-path (default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', false, '60s'],
      ['nfs', 'example.com/nfs', 'Delete', 'Immediate', true, '60s'],
    ]);
  });
});
