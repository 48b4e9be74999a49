import { describe, expect, it } from 'vitest';
import { planSlices, type SliceAction } from '../../../cloud/controllers/endpointslice/index.js';
import type { EndpointSlice } from '../../../shared/cluster-object-types.js';
import type { Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

const service = (spec: Partial<Service['spec']> = {}): Service => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', labels: { tier: 'front' } },
  spec: { type: 'ClusterIP', clusterIP: '10.96.1.1', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }], ...spec },
});

const pod = (name: string, ip: string, o: { ready?: boolean; terminating?: boolean; port?: number } = {}): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' }, ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', ports: [{ name: 'http', containerPort: o.port ?? 8080 }] }] },
  status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
});

const stored = (action: SliceAction, name: string): EndpointSlice => {
  if (action.type === 'delete') throw new Error('not a write');
  return { ...action.slice, metadata: { ...action.slice.metadata, name, uid: `uid-${name}` } };
};

describe('planSlices', () => {
  it('creates one slice per Service, labelled, owned and generateName <service>-, with conditions, node, target and ports', () => {
    const actions = planSlices(service(), [pod('a', '10.244.0.3'), pod('b', '10.244.0.4', { ready: false }), pod('c', '10.244.0.5', { terminating: true })], []);
    expect(actions).toEqual([{
      type: 'create',
      slice: {
        apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4',
        metadata: {
          generateName: 'web-', namespace: 'default',
          labels: { tier: 'front', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid', controller: true, blockOwnerDeletion: true }],
        },
        endpoints: [
          { addresses: ['10.244.0.3'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'edge-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } },
          { addresses: ['10.244.0.4'], conditions: { ready: false, serving: false, terminating: false }, nodeName: 'edge-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' } },
          { addresses: ['10.244.0.5'], conditions: { ready: false, serving: true, terminating: true }, nodeName: 'edge-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'c', uid: 'uid-c' } },
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    }]);
  });

  it('keeps an empty slice for a Service with no endpoints, and writes nothing when nothing changed', () => {
    const [create] = planSlices(service(), [], []);
    expect(create).toMatchObject({ type: 'create', slice: { endpoints: [] } });
    expect(planSlices(service(), [], [stored(create!, 'web-abcde')])).toEqual([]);
  });

  it('updates the slice it has in place when the endpoints change', () => {
    const [create] = planSlices(service(), [pod('a', '10.244.0.3')], []);
    const actions = planSlices(service(), [pod('a', '10.244.0.3'), pod('b', '10.244.0.4')], [stored(create!, 'web-abcde')]);
    expect(actions).toMatchObject([{ type: 'update', slice: { metadata: { name: 'web-abcde' }, endpoints: [{ addresses: ['10.244.0.3'] }, { addresses: ['10.244.0.4'] }] } }]);
  });

  it('puts at most 100 endpoints in a slice, and pods offering other ports in another slice', () => {
    const many = Array.from({ length: 150 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, `10.244.${Math.floor(i / 200)}.${(i % 200) + 1}`));
    const actions = planSlices(service(), [...many, pod('other', '10.244.9.9', { port: 9090 })], []);
    expect(actions.map((a) => (a.type === 'create' ? [a.slice.endpoints.length, a.slice.ports?.[0]?.port] : a.type))).toEqual([[100, 8080], [50, 8080], [1, 9090]]);
  });

  it('deletes the slices of a Service gone, or without a selector, or of another address type', () => {
    const [create] = planSlices(service(), [], []);
    const slice = stored(create!, 'web-abcde');
    expect(planSlices(undefined, [], [slice])).toEqual([{ type: 'delete', namespace: 'default', name: 'web-abcde' }]);
    expect(planSlices(service({ selector: undefined }), [], [slice])).toEqual([{ type: 'delete', namespace: 'default', name: 'web-abcde' }]);
    const v6 = planSlices(service({ ipFamilies: ['IPv6'] }), [], [slice]);
    expect(v6.map((a) => a.type)).toEqual(['delete', 'create']);
  });

  it('deletes the slices no longer needed when endpoints shrink', () => {
    const many = Array.from({ length: 120 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, `10.244.1.${i + 1}`));
    const slices = planSlices(service(), many, []).map((a, i) => stored(a, `web-${i}`));
    expect(planSlices(service(), many.slice(0, 10), slices)).toMatchObject([{ type: 'update', slice: { metadata: { name: 'web-0' } } }, { type: 'delete', name: 'web-1' }]);
  });
});
