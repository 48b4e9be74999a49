import { describe, expect, it } from 'vitest';
import { decodeDown, encode } from './codec.js';
import { EnvelopeStamper, type ObjectRef } from './envelope.js';

const cloud = new EnvelopeStamper('cloud', 'c1');
const ref = (kind: string): ObjectRef =>
  kind === 'PersistentVolume' ? { kind, name: 'cfg', uid: 'u1', resourceVersion: '7' } : { kind, namespace: 'default', name: 'cfg', uid: 'u1', resourceVersion: '7' };
const pvMeta = { name: 'cfg', uid: 'u1' };
const meta = { name: 'cfg', namespace: 'default', uid: 'u1' };
const apply = (kind: string, body: unknown) => encode(cloud.stamp({ type: 'apply', ref: ref(kind), body } as never));

describe('apply bodies of every synced kind [SYNC-1][SYNC-18]', () => {
  it.each([
    ['a Pod', 'Pod', { metadata: meta, spec: { containers: [] } }],
    ['a ConfigMap', 'ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { 'app.conf': 'x=1' }, binaryData: { b: 'AAE=' }, immutable: true }],
    ['an empty ConfigMap', 'ConfigMap', { metadata: meta }],
    ['a Secret', 'Secret', { kind: 'Secret', metadata: meta, type: 'Opaque', data: { password: 'cHc=' } }],
    ['a bound claim', 'PersistentVolumeClaim', { kind: 'PersistentVolumeClaim', metadata: meta, spec: { volumeName: 'pv-1', accessModes: ['ReadWriteOnce'] } }],
    ['a pending claim', 'PersistentVolumeClaim', { metadata: meta, spec: {} }],
    ['a hostPath volume (cluster-scoped)', 'PersistentVolume', { kind: 'PersistentVolume', metadata: pvMeta, spec: { hostPath: { path: '/var/lib/x' } } }],
    ['a local volume', 'PersistentVolume', { metadata: pvMeta, spec: { local: { path: '/mnt/x' } } }],
  ])('takes %s', (_name, kind, body) => {
    expect(decodeDown(apply(kind, body)).ok).toBe(true);
  });

  it.each([
    ['a kind the edge does not hold', 'Deployment', { metadata: meta, spec: {} }, /ref.kind must be one of Pod, ConfigMap, Secret, PersistentVolumeClaim, PersistentVolume/],
    ['a body of another kind than its ref', 'ConfigMap', { kind: 'Secret', metadata: meta, data: {} }, /body.kind must equal ref.kind/],
    ['a Pod without spec', 'Pod', { metadata: meta }, /body.spec/],
    ['another namespace than its ref', 'Secret', { metadata: { ...meta, namespace: 'other' } }, /namespace/],
    ['another uid than its ref', 'Secret', { metadata: { ...meta, uid: 'u2' } }, /uid/],
    ['ConfigMap data that is not strings', 'ConfigMap', { metadata: meta, data: { a: 1 } }, /body.data/],
    ['ConfigMap data that is a list', 'ConfigMap', { metadata: meta, data: ['a'] }, /body.data/],
    ['ConfigMap binaryData that is not strings', 'ConfigMap', { metadata: meta, binaryData: { a: { b: 1 } } }, /body.binaryData/],
    ['a Secret whose data is a string', 'Secret', { metadata: meta, data: 'cHc=' }, /body.data/],
    ['a Secret whose type is not a string', 'Secret', { metadata: meta, type: 3 }, /body.type/],
    ['immutable that is not a boolean', 'ConfigMap', { metadata: meta, immutable: 'yes' }, /immutable/],
    ['no metadata', 'ConfigMap', { data: {} }, /metadata/],
    ['a claim whose volumeName is not a string', 'PersistentVolumeClaim', { metadata: meta, spec: { volumeName: 3 } }, /body.spec.volumeName/],
    ['a claim whose spec is a list', 'PersistentVolumeClaim', { metadata: meta, spec: [] }, /body.spec must be an object/],
    ['a volume with a namespace', 'PersistentVolume', { metadata: meta, spec: {} }, /namespace/],
    ['a volume whose hostPath has no path', 'PersistentVolume', { metadata: pvMeta, spec: { hostPath: {} } }, /body.spec.hostPath.path/],
    ['a volume whose local path is not a string', 'PersistentVolume', { metadata: pvMeta, spec: { local: { path: 1 } } }, /body.spec.local.path/],
  ])('drops %s', (_name, kind, body, reason) => {
    const out = decodeDown(apply(kind, body));
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.reason).toMatch(reason);
  });
});
