import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDefaultStorageClass } from '../../cloud/apiserver/kinds/bootstrap.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';
import { hasKubectl, kubectlIn, type Run } from '../support/kubectl.js';

/** The real kubectl against PersistentVolumes, PersistentVolumeClaims and StorageClasses: what `get` prints. */
describe.skipIf(!hasKubectl)('kubectl with storage', () => {
  let f: HttpApiFixture;
  const kubectl = (...args: string[]): Promise<Run> => kubectlIn(f.dir, f.kubeconfig)(...args);
  const words = (line: string | undefined): string[] => (line ?? '').trim().split(/\s+/);

  beforeAll(async () => {
    f = await httpApiFixture();
    await ensureDefaultStorageClass(f.api.loopback(f.token));
  });
  afterAll(async () => {
    await f?.close();
  });

  it('prints storage classes with (default) after the default one', async () => {
    const r = await kubectl('get', 'sc');
    expect(r.stderr).toBe('');
    const [header, row, end] = r.stdout.split('\n');
    expect(words(header)).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(words(row)).toEqual(['local-path', '(default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', 'false', expect.stringMatching(/^\d+s$/)]);
    expect(end).toBe('');
  });

  it('creates a volume and a claim and prints them as kubectl get pv,pvc does', async () => {
    const manifest = join(f.dir, 'storage.json');
    await writeFile(manifest, JSON.stringify({
      apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], storageClassName: 'manual', hostPath: { path: '/srv/pv1' } } },
        { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ],
    }));
    expect(await kubectl('create', '--validate=false', '-f', manifest)).toMatchObject({ code: 0, stdout: 'persistentvolume/pv1 created\npersistentvolumeclaim/data created\n' });
    // What the persistentvolume controller would write, to see a bound pair printed.
    const api = f.api.loopback(f.token);
    await api.patch<PersistentVolume>({ resource: 'persistentvolumes', name: 'pv1' }, { spec: { claimRef: { namespace: 'default', name: 'data' } } }, 'merge');
    await api.patch<PersistentVolume>({ resource: 'persistentvolumes', name: 'pv1', subresource: 'status' }, { status: { phase: 'Bound' } }, 'merge');

    const r = await kubectl('get', 'pv,pvc');
    expect(r.stderr).toBe('');
    const [pvHeader, pvRow, blank, pvcHeader, pvcRow] = r.stdout.split('\n');
    expect(pvHeader).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/);
    expect(words(pvRow)).toEqual(['persistentvolume/pv1', '5Gi', 'RWO,ROX', 'Retain', 'Bound', 'default/data', 'manual', '<unset>', expect.stringMatching(/^\d+s$/)]);
    expect(blank).toBe('');
    expect(pvcHeader).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/);
    expect(words(pvcRow)).toEqual(['persistentvolumeclaim/data', 'Pending', 'local-path', '<unset>', expect.stringMatching(/^\d+s$/)]);

    await api.patch<PersistentVolumeClaim>({ resource: 'persistentvolumeclaims', namespace: 'default', name: 'data' }, { spec: { volumeName: 'pv1' } }, 'merge');
    await api.patch({ resource: 'persistentvolumeclaims', namespace: 'default', name: 'data', subresource: 'status' }, { status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] } }, 'merge');
    const wide = await kubectl('get', 'pvc', '-o', 'wide');
    const [wideHeader, wideRow] = wide.stdout.split('\n');
    expect(wideHeader).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\s+VOLUMEMODE$/);
    expect(words(wideRow)).toEqual(['data', 'Bound', 'pv1', '5Gi', 'RWO,ROX', 'local-path', '<unset>', expect.stringMatching(/^\d+s$/), 'Filesystem']);

    const described = await kubectl('describe', 'pvc', 'data');
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/^StorageClass:\s+local-path$/m);
    expect(described.stdout).toMatch(/^Volume:\s+pv1$/m);
  });

  it('applies a claim: created, then unchanged though the server filled in its class and volume mode', async () => {
    const manifest = join(f.dir, 'claim.yaml');
    await writeFile(manifest, ['apiVersion: v1', 'kind: PersistentVolumeClaim', 'metadata:', '  name: logs', 'spec:', '  accessModes: [ReadWriteOnce]', '  resources:', '    requests:', '      storage: 2Gi', ''].join('\n'));
    expect(await kubectl('apply', '-f', manifest)).toEqual({ code: 0, stdout: 'persistentvolumeclaim/logs created\n', stderr: '' });
    expect(await kubectl('apply', '-f', manifest)).toEqual({ code: 0, stdout: 'persistentvolumeclaim/logs unchanged\n', stderr: '' });
    expect((await kubectl('get', 'pvc', 'logs', '-o', 'jsonpath={.spec.storageClassName} {.spec.volumeMode}')).stdout).toBe('local-path Filesystem');
  });

  it('refuses a claim without access modes with kube\'s message', async () => {
    const manifest = join(f.dir, 'bad.json');
    await writeFile(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'bad' }, spec: { resources: { requests: { storage: '1Gi' } } } }));
    const r = await kubectl('create', '--validate=false', '-f', manifest);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The PersistentVolumeClaim "bad" is invalid: spec.accessModes: Required value: at least 1 access mode is required');
  });
});
