import { describe, expect, it } from 'vitest';
import { planSchedule, type ScheduleAction } from '../../cloud/scheduler/plan.js';
import type { VolumeLookup } from '../../cloud/scheduler/volume-binding.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../shared/storage-types.js';
import type { Pod } from '../../shared/types.js';
import { infos, node, pod } from './fixtures.js';

const hostname = (name: string) => node(name, { labels: { 'kubernetes.io/hostname': name } });
const nodes = infos([hostname('edge-1'), hostname('edge-2'), hostname('edge-3')]);

const onNode = (name: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In' as const, values: [name] }] }] } });
const volume = (name: string, spec: Partial<PersistentVolume['spec']> = {}, phase = 'Bound'): PersistentVolume => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' }, storageClassName: 'manual', ...spec },
  status: { phase: phase as 'Bound' },
});
const claim = (name: string, cls: string, extra: { volumeName?: string; annotations?: Record<string, string>; deleting?: boolean } = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default', annotations: extra.annotations, ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls, volumeName: extra.volumeName },
});
const boundClaim = (name: string, volumeName: string) => claim(name, 'local-path', { volumeName, annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } });
const cls = (name: string, provisioner: string, mode: 'Immediate' | 'WaitForFirstConsumer'): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, volumeBindingMode: mode,
});

function lookup(claims: PersistentVolumeClaim[], volumes: PersistentVolume[] = []): VolumeLookup {
  const classes = [cls('local-path', 'rancher.io/local-path', 'WaitForFirstConsumer'), cls('manual', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer'), cls('nfs', 'example.com/nfs', 'Immediate')];
  return {
    claim: (namespace, name) => claims.find((c) => c.metadata.namespace === namespace && c.metadata.name === name),
    volume: (name) => volumes.find((v) => v.metadata.name === name),
    storageClass: (name) => classes.find((c) => c.metadata.name === name),
    volumes: () => volumes,
  };
}

const unexpected = (): never => {
  throw new Error('looked up');
};
const using = (...claimNames: string[]): Pod => pod({ volumes: claimNames.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })) });
const summary = (action: ScheduleAction): string =>
  action.type === 'bind' ? `bind ${action.node}` : action.type === 'selectNode' ? `select ${action.node} for ${action.claims.map((c) => c.metadata.name).join(',')}` : action.type === 'unschedulable' ? action.message : action.type;

describe("the scheduler's volume rules (VolumeBinding)", () => {
  const cases: { name: string; pod: Pod; volumes: VolumeLookup; want: string }[] = [
    { name: 'a pod without claims is placed as before', pod: pod(), volumes: lookup([]), want: 'bind edge-1' },
    { name: 'a missing claim: unschedulable, as kube words it', pod: using('data'), volumes: lookup([]), want: '0/3 nodes are available: persistentvolumeclaim "data" not found.' },
    { name: 'a claim being deleted: unschedulable', pod: using('data'), volumes: lookup([claim('data', 'local-path', { deleting: true })]), want: '0/3 nodes are available: persistentvolumeclaim "data" is being deleted.' },
    { name: 'an unbound Immediate claim: unschedulable', pod: using('data'), volumes: lookup([claim('data', 'nfs')]), want: '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.' },
    { name: "a bound claim: only the node its volume's affinity names", pod: using('data'), volumes: lookup([boundClaim('data', 'pv1')], [volume('pv1', { nodeAffinity: onNode('edge-3') })]), want: 'bind edge-3' },
    { name: 'a bound claim whose volume fits no node: a volume node affinity conflict', pod: using('data'), volumes: lookup([boundClaim('data', 'pv1')], [volume('pv1', { nodeAffinity: onNode('gone') })]),
      want: '0/3 nodes are available: 3 node(s) had volume node affinity conflict.' },
    { name: 'a bound claim whose volume is missing', pod: using('data'), volumes: lookup([boundClaim('data', 'pv1')]), want: '0/3 nodes are available: 3 node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s).' },
    { name: 'a bound claim without node affinity: any node', pod: using('data'), volumes: lookup([boundClaim('data', 'pv1')], [volume('pv1')]), want: 'bind edge-1' },
    { name: 'a WaitForFirstConsumer claim: a node is picked and told to the claim; the pod waits', pod: using('data'), volumes: lookup([claim('data', 'local-path')]), want: 'select edge-1 for data' },
    { name: 'a claim told its node, not bound yet: the pod waits', pod: using('data'), volumes: lookup([claim('data', 'local-path', { annotations: { 'volume.kubernetes.io/selected-node': 'edge-2' } })]), want: 'awaitVolumes' },
    { name: 'a static late-binding claim: only nodes with a matching volume', pod: using('data'), volumes: lookup([claim('data', 'manual')], [volume('pv1', { nodeAffinity: onNode('edge-2') }, 'Available')]), want: 'select edge-2 for data' },
    { name: 'a static late-binding claim and no volume: no node', pod: using('data'), volumes: lookup([claim('data', 'manual')]), want: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind." },
    { name: 'a claim told another node than a bound claim allows: no node', pod: using('a', 'b'),
      volumes: lookup([boundClaim('a', 'pv1'), claim('b', 'local-path', { annotations: { 'volume.kubernetes.io/selected-node': 'edge-1' } })], [volume('pv1', { nodeAffinity: onNode('edge-2') })]),
      want: "0/3 nodes are available: 2 node(s) didn't find available persistent volumes to bind, 2 node(s) had volume node affinity conflict." },
  ];
  for (const c of cases) {
    it(c.name, () => expect(summary(planSchedule({ pod: c.pod, schedulerName: 'default-scheduler', nodes, start: 0, volumes: c.volumes }).action)).toBe(c.want));
  }

  it('a pod without claims asks the volume lookup nothing', () => {
    const untouchable: VolumeLookup = { claim: unexpected, volume: unexpected, storageClass: unexpected, volumes: unexpected };
    const configOnly = pod({ volumes: [{ name: 'cfg', configMap: { name: 'app' } }] });
    for (const p of [pod(), configOnly]) expect(summary(planSchedule({ pod: p, schedulerName: 'default-scheduler', nodes, start: 0, volumes: untouchable }).action)).toBe('bind edge-1');
  });
  it('a claim among other volumes is still checked', () => {
    const mixed = pod({ volumes: [{ name: 'cfg', configMap: { name: 'app' } }, { name: 'data', persistentVolumeClaim: { claimName: 'data' } }] });
    expect(summary(planSchedule({ pod: mixed, schedulerName: 'default-scheduler', nodes, start: 0, volumes: lookup([]) }).action)).toBe('0/3 nodes are available: persistentvolumeclaim "data" not found.');
  });
});
