import { afterEach, describe, expect, it } from 'vitest';
import { informer } from '../../cloud/informer/informer.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { StatefulSet } from '../../shared/statefulset-types.js';
import type { PersistentVolumeClaim } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const stsRef = { resource: 'statefulsets', group: 'apps', namespace: 'default' };
const pods = { resource: 'pods', namespace: 'default' };
const claims = { resource: 'persistentvolumeclaims', namespace: 'default' };

const web: StatefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }] }] } },
    volumeClaimTemplates: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

const isReady = (p: Pod | undefined): boolean => p?.status?.phase === 'Running' && (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe('a StatefulSet on the edges', () => {
  let cluster: Cluster<FakeClock> | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('starts web-0 before web-1, binds a local-path claim per pod, and brings a deleted web-1 back on its node with its claim', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 3 }));
    // Every pod as the apiserver showed it, in order: web-1 must first appear after web-0 was Running and Ready.
    const seen: Pod[] = [];
    const sub = informer<Pod>(c.api, { resource: 'pods', namespace: 'default' }, { clock: c.clock, logger: silentLogger }).subscribe((e) => {
      if (e.type !== 'SYNCED' && e.type !== 'DELETED') seen.push(e.object);
    });
    try {
      await c.api.create(stsRef, web);
      const status = await runUntil(c.clock, async () => {
        const s = (await c.api.get<StatefulSet>({ ...stsRef, name: 'web' })).status;
        return s?.readyReplicas === 2 && s.availableReplicas === 2 && s.currentReplicas === 2 && s.updatedReplicas === 2 && s;
      }, 'two ready pods');
      expect(status.currentRevision).toBe(status.updateRevision);
      expect(status.currentRevision).toMatch(/^web-[0-9a-z]+$/);
      const firstWeb1 = seen.findIndex((p) => p.metadata.name === 'web-1');
      expect(firstWeb1).toBeGreaterThan(0);
      expect(seen.slice(0, firstWeb1).some((p) => p.metadata.name === 'web-0' && isReady(p))).toBe(true);

      const web1 = await c.api.get<Pod>({ ...pods, name: 'web-1' });
      expect(web1.metadata.labels).toMatchObject({ app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-1', 'apps.kubernetes.io/pod-index': '1', 'controller-revision-hash': status.updateRevision });
      expect(web1.spec).toMatchObject({ hostname: 'web-1', subdomain: 'web' });
      expect(web1.spec.volumes).toEqual([{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } }]);
      for (const name of ['www-web-0', 'www-web-1']) {
        const claim = await c.api.get<PersistentVolumeClaim>({ ...claims, name });
        expect(claim.status?.phase).toBe('Bound');
        expect(claim.spec.storageClassName).toBe('local-path');
        expect(claim.metadata.labels).toEqual({ app: 'web' });
      }
      const claim1 = await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'www-web-1' });
      expect(claim1.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(web1.spec.nodeName);

      await c.api.delete({ ...pods, name: 'web-1' });
      const back = await runUntil(c.clock, async () => {
        const p = await c.api.get<Pod>({ ...pods, name: 'web-1' }).catch(() => undefined);
        return p && p.metadata.uid !== web1.metadata.uid && isReady(p) && p;
      }, 'web-1 back and Running');
      expect(back.spec.nodeName).toBe(web1.spec.nodeName);
      expect(back.spec.volumes).toEqual(web1.spec.volumes);
      expect((await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'www-web-1' })).metadata.uid).toBe(claim1.metadata.uid);
    } finally {
      sub.unsubscribe();
    }
  });

  it('persistentVolumeClaimRetentionPolicy Delete: a scaled-away ordinal takes its claim along, and deleting the set takes the rest', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 }));
    const claimNames = async (): Promise<string[]> => (await c.api.list<PersistentVolumeClaim>(claims)).items.map((x) => x.metadata.name!).sort();
    const spec = { ...web.spec, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' as const, whenScaled: 'Delete' as const } };
    await c.api.create(stsRef, { ...web, spec });
    await runUntil(c.clock, async () => (await c.api.get<StatefulSet>({ ...stsRef, name: 'web' })).status?.readyReplicas === 2, 'two ready pods');
    expect(await claimNames()).toEqual(['www-web-0', 'www-web-1']);

    await c.api.patch({ ...stsRef, name: 'web' }, { spec: { replicas: 1 } }, 'merge');
    await runUntil(c.clock, async () => (await claimNames()).join() === 'www-web-0', 'www-web-1 gone with web-1');
    const kept = await c.api.get<PersistentVolumeClaim>({ ...claims, name: 'www-web-0' });
    expect(kept.metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}`)).toEqual(['StatefulSet/web']);

    await c.api.delete({ ...stsRef, name: 'web' });
    await runUntil(c.clock, async () => (await claimNames()).length === 0 && (await c.api.list<Pod>(pods)).items.length === 0, 'the pods and claims gone with the set');
  });

  it('never runs two web-1: on a cut-off edge web-1 is evicted but stays until the edge confirms, then comes back there', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 2 }));
    await c.api.create(stsRef, web);
    await runUntil(c.clock, async () => (await c.api.get<StatefulSet>({ ...stsRef, name: 'web' })).status?.readyReplicas === 2, 'two ready pods');
    const web1 = await c.api.get<Pod>({ ...pods, name: 'web-1' });
    const node = web1.spec.nodeName!;

    c.cut(node);
    // The grace period, then the default 300 s toleration of the unreachable taint, and a minute more.
    await pass(c.clock, c.timing.nodeMonitorGraceMs + 360_000, 1_000);
    const evicted = await c.api.get<Pod>({ ...pods, name: 'web-1' });
    expect(evicted.metadata.uid).toBe(web1.metadata.uid);
    expect(evicted.metadata.deletionTimestamp).toBeDefined();

    c.heal(node);
    const back = await runUntil(c.clock, async () => {
      const p = await c.api.get<Pod>({ ...pods, name: 'web-1' }).catch(() => undefined);
      return p && p.metadata.uid !== web1.metadata.uid && isReady(p) && p;
    }, 'a new web-1 Running');
    expect(back.spec.nodeName).toBe(node);
  });
});
