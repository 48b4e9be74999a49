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

  it('keeps a pod whose claim is missing pending, then binds it once a hand-made volume is bound to the claim; a Retain volume is Released after', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 }));
    await c.api.create(pods, podWith('app', 'manual'));
    const condition = async () => (await c.api.get<Pod>({ ...pods, name: 'app' })).status?.conditions?.find((x) => x.type === 'PodScheduled');
    const unschedulable = await runUntil(c.clock, condition, 'PodScheduled=False');
    expect(unschedulable.message).toBe('0/2 nodes are available: persistentvolumeclaim "manual" not found.');

    const pv: PersistentVolume = {
      apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'disk' },
      spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/srv/disk' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['edge-2'] }] }] } } },
    };
    await c.api.create(volumes, pv);
    await c.api.create(claims, { ...claim('manual'), spec: { ...claim('manual').spec, storageClassName: '' } });
    expect(await runUntil(c.clock, async () => (await c.api.get<Pod>({ ...pods, name: 'app' })).spec.nodeName, 'the pod bound')).toBe('edge-2');
    expect(await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'manual' })).toMatchObject({ spec: { volumeName: 'disk' }, status: { phase: 'Bound', capacity: { storage: '10Gi' } } });

    await c.api.delete({ ...pods, name: 'app' }, { gracePeriodSeconds: 0 });
    await c.api.delete({ ...claims, name: 'manual' });
    const released = await runUntil(c.clock, async () => {
      const disk = await c.api.get<PersistentVolume>({ ...volumes, name: 'disk' });
      return disk.status?.phase === 'Released' && disk;
    }, 'the volume released');
    expect(released.spec.persistentVolumeReclaimPolicy).toBe('Retain');
    await pass(c.clock, 5_000);
    expect((await c.api.get<PersistentVolume>({ ...volumes, name: 'disk' })).status?.phase).toBe('Released');
  });
});
