import { describe, expect, it } from 'vitest';
import { podReferences, type PodReference } from './pod-references.js';
import type { Pod } from './types.js';

const pod = (spec: Partial<Pod['spec']>): Pod => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [], ...spec } });
const cm = (name: string): PodReference => ({ kind: 'ConfigMap', name });
const secret = (name: string): PodReference => ({ kind: 'Secret', name });
const pvc = (name: string): PodReference => ({ kind: 'PersistentVolumeClaim', name });

describe('podReferences', () => {
  it.each([
    { name: 'nothing', spec: { containers: [{ name: 'c', env: [{ name: 'A', value: '1' }] }] }, refs: [] },
    {
      name: 'env valueFrom configMapKeyRef and secretKeyRef',
      spec: { containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 'pw', key: 'b' } } }] }] },
      refs: [cm('cfg'), secret('pw')],
    },
    { name: 'env fieldRef names nothing', spec: { containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }] }, refs: [] },
    { name: 'envFrom', spec: { containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cfg' } }, { prefix: 'S_', secretRef: { name: 'pw', optional: true } }] }] }, refs: [cm('cfg'), secret('pw')] },
    { name: 'initContainers', spec: { initContainers: [{ name: 'i', envFrom: [{ configMapRef: { name: 'init-cfg' } }] }] }, refs: [cm('init-cfg')] },
    { name: 'ephemeralContainers', spec: { ephemeralContainers: [{ name: 'debug', env: [{ name: 'T', valueFrom: { secretKeyRef: { name: 'dbg', key: 't' } } }] }] }, refs: [secret('dbg')] },
    { name: 'configMap and secret volumes', spec: { volumes: [{ name: 'v1', configMap: { name: 'files' } }, { name: 'v2', secret: { secretName: 'certs' } }] }, refs: [cm('files'), secret('certs')] },
    {
      name: 'projected sources',
      spec: { volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'a' } }, { secret: { name: 'b' } }, { downwardAPI: { items: [] } }, { serviceAccountToken: { path: 't' } }] } }] },
      refs: [cm('a'), secret('b')],
    },
    { name: 'imagePullSecrets', spec: { imagePullSecrets: [{ name: 'registry' }] }, refs: [secret('registry')] },
    { name: 'persistentVolumeClaim', spec: { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-0' } }] }, refs: [pvc('data-0')] },
    { name: 'volumes naming nothing', spec: { volumes: [{ name: 'tmp', emptyDir: {} }, { name: 'h', hostPath: { path: '/x' } }] }, refs: [] },
    {
      name: 'each once, in the order first met',
      spec: {
        containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cfg' } }], env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }] }],
        volumes: [{ name: 'v', configMap: { name: 'cfg' } }, { name: 's', secret: { secretName: 'cfg' } }],
      },
      refs: [cm('cfg'), secret('cfg')],
    },
    { name: 'names missing or empty are skipped', spec: { volumes: [{ name: 'v', configMap: {} }, { name: 's', secret: { secretName: '' } }], imagePullSecrets: [{}] }, refs: [] },
    { name: 'junk in place of lists is skipped', spec: { volumes: 'x', imagePullSecrets: [null, 3], containers: [{ name: 'c', env: {} }] }, refs: [] },
  ] as { name: string; spec: Partial<Pod['spec']>; refs: PodReference[] }[])('$name', ({ spec, refs }) => {
    expect(podReferences(pod(spec))).toEqual(refs);
  });

  it('leaves the pod as it was', () => {
    const p = pod({ volumes: [{ name: 'v', configMap: { name: 'files' } }] });
    const before = structuredClone(p);
    podReferences(p);
    expect(p).toEqual(before);
  });
});
