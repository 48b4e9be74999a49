import { afterEach, describe, expect, it } from 'vitest';
import type { KubeEvent } from '../../cloud/controllers/events.js';
import { FakeClock } from '../../shared/clock.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const pods = { resource: 'pods', namespace: 'default' };
const claims = { resource: 'persistentvolumeclaims', namespace: 'default' };
const volumes = { resource: 'persistentvolumes' };

const claim = (name: string): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});
const podWith = (name: string, claimName: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
});

/** The default StorageClass local-path, end to end on the cloud: scheduler, persistentvolume controller and provisioner. */
describe('local-path volumes', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('binds a claim at its first consumer to a volume on the pod node, keeps later pods there, and deletes the volume with the claim', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 3 }));
    await runUntil(c.clock, async () => (await c.api.list({ resource: 'nodes' })).items.length === 3, 'three nodes');
    const created = await c.api.create<PersistentVolumeClaim>(claims, claim('data'));
    expect(created.spec.storageClassName).toBe('local-path');
    await pass(c.clock, 2_000);
    const waiting = await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'data' });
    expect(waiting.status?.phase).toBe('Pending');
    expect((await c.api.list(volumes)).items).toEqual([]);

    await c.api.create(pods, podWith('first', 'data'));
    const node = await runUntil(c.clock, async () => (await c.api.get<Pod>({ ...pods, name: 'first' })).spec.nodeName, 'the first pod bound');
    const bound = await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'data' });
    expect(bound.status?.phase).toBe('Bound');
    expect(bound.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(node);
    const pv = await c.api.get<PersistentVolume>({ ...volumes, name: bound.spec.volumeName });
    expect(pv.metadata.name).toBe(`pvc-${created.metadata.uid}`);
    expect(pv.status?.phase).toBe('Bound');
    expect(pv.spec.hostPath).toEqual({ path: `/opt/local-path-provisioner/pvc-${created.metadata.uid}_default_data`, type: 'DirectoryOrCreate' });
    expect(pv.spec.nodeAffinity?.required?.nodeSelectorTerms).toEqual([{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }]);

    await c.api.create(pods, podWith('second', 'data'));
    expect(await runUntil(c.clock, async () => (await c.api.get<Pod>({ ...pods, name: 'second' })).spec.nodeName, 'the second pod bound')).toBe(node);

    const events = (await c.api.list<KubeEvent>({ resource: 'events', namespace: 'default' })).items.filter((e) => e.involvedObject.name === 'data');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['WaitForFirstConsumer', 'Provisioning', 'ProvisioningSucceeded']));

    for (const name of ['first', 'second']) await c.api.delete({ ...pods, name }, { gracePeriodSeconds: 0 });
    await c.api.delete({ ...claims, name: 'data' });
    await runUntil(c.clock, async () => (await c.api.list(volumes)).items.length === 0, 'the volume deleted with its claim');
  });
});
