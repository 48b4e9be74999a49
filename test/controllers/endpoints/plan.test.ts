import { describe, expect, it } from 'vitest';
import { HEADLESS_LABEL, planEndpoints, type EndpointsAction } from '../../../cloud/controllers/endpoints/plan.js';
import type { EndpointSubset, Endpoints, Service } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

const key = { namespace: 'default', name: 'web' };

const service = (spec: Partial<Service['spec']> = {}, labels?: Record<string, string>): Service => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', labels },
  spec: { type: 'ClusterIP', clusterIP: '10.96.1.1', selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
});

interface PodOptions {
  ip?: string;
  ready?: boolean;
  labels?: Record<string, string>;
  namespace?: string;
  phase?: 'Running' | 'Succeeded' | 'Failed';
  terminating?: boolean;
  ports?: { name: string; containerPort: number; protocol?: string }[];
}

const pod = (name: string, o: PodOptions = {}): Pod => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${name}`, labels: o.labels ?? { app: 'web' }, ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { nodeName: 'edge-1', containers: [{ name: 'app', ports: o.ports ?? [] }] },
  status: { phase: o.phase ?? 'Running', ...(o.ip === undefined ? {} : { podIP: o.ip }), conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
});

const address = (name: string, ip: string) => ({ ip, nodeName: 'edge-1', targetRef: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` } });
const port80 = [{ port: 8080, protocol: 'TCP' }];

/** The subsets a plan would write (create or update), or the action itself for the rest. */
const written = (actions: EndpointsAction[]): EndpointSubset[] | EndpointsAction[] => {
  const write = actions[0];
  return actions.length === 1 && write && write.type !== 'delete' ? write.endpoints.subsets ?? [] : actions;
};

describe('planEndpoints: subsets', () => {
  const cases: { name: string; service?: Service; pods: Pod[]; subsets: EndpointSubset[] }[] = [
    {
      name: 'ready pods in addresses, others in notReadyAddresses, sorted by IP',
      pods: [pod('b', { ip: '10.244.0.3' }), pod('c', { ip: '10.244.0.4', ready: false }), pod('a', { ip: '10.244.0.10' })],
      subsets: [{ addresses: [address('a', '10.244.0.10'), address('b', '10.244.0.3')], notReadyAddresses: [address('c', '10.244.0.4')], ports: port80 }],
    },
    {
      name: 'pods without an IP, terminating or finished are left out',
      pods: [pod('noip'), pod('going', { ip: '10.244.0.5', terminating: true }), pod('done', { ip: '10.244.0.6', phase: 'Succeeded' }), pod('failed', { ip: '10.244.0.7', phase: 'Failed' }), pod('ok', { ip: '10.244.0.8' })],
      subsets: [{ addresses: [address('ok', '10.244.0.8')], ports: port80 }],
    },
    {
      name: 'publishNotReadyAddresses lists not ready and terminating pods as ready',
      service: service({ publishNotReadyAddresses: true }),
      pods: [pod('going', { ip: '10.244.0.5', terminating: true }), pod('slow', { ip: '10.244.0.6', ready: false })],
      subsets: [{ addresses: [address('going', '10.244.0.5'), address('slow', '10.244.0.6')], ports: port80 }],
    },
    {
      name: 'a named targetPort resolves per pod; a pod without that port is left out of that port',
      service: service({ ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'web' }, { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 }] }),
      pods: [
        pod('a', { ip: '10.244.0.2', ports: [{ name: 'web', containerPort: 8080 }] }),
        pod('b', { ip: '10.244.0.3', ports: [{ name: 'web', containerPort: 8081 }] }),
        pod('c', { ip: '10.244.0.4', ports: [{ name: 'web', containerPort: 8080, protocol: 'UDP' }] }),
      ],
      subsets: [
        { addresses: [address('a', '10.244.0.2')], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
        { addresses: [address('a', '10.244.0.2'), address('b', '10.244.0.3'), address('c', '10.244.0.4')], ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }] },
        { addresses: [address('b', '10.244.0.3')], ports: [{ name: 'http', port: 8081, protocol: 'TCP' }] },
      ],
    },
    {
      name: 'several ports offered by the same pods share one subset',
      service: service({ ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 }, { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] }),
      pods: [pod('a', { ip: '10.244.0.2' }), pod('b', { ip: '10.244.0.3', ready: false })],
      subsets: [{ addresses: [address('a', '10.244.0.2')], notReadyAddresses: [address('b', '10.244.0.3')], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'https', port: 8443, protocol: 'TCP' }] }],
    },
    {
      name: 'only pods of the namespace that the selector picks',
      pods: [pod('other-ns', { ip: '10.244.0.2', namespace: 'prod' }), pod('other-app', { ip: '10.244.0.3', labels: { app: 'db' } }), pod('unlabelled', { ip: '10.244.0.4', labels: {} }), pod('mine', { ip: '10.244.0.5', labels: { app: 'web', tier: 'x' } })],
      subsets: [{ addresses: [address('mine', '10.244.0.5')], ports: port80 }],
    },
    {
      name: 'a headless Service without ports lists addresses alone',
      service: service({ clusterIP: 'None', ports: [] }),
      pods: [pod('a', { ip: '10.244.0.2' })],
      subsets: [{ addresses: [address('a', '10.244.0.2')] }],
    },
    { name: 'no pods: no subsets', pods: [], subsets: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(written(planEndpoints(key, c.service ?? service(), c.pods, undefined))).toEqual(c.subsets);
    });
  }
});

describe('planEndpoints: what to write', () => {
  const current = (subsets?: EndpointSubset[], labels?: Record<string, string>): Endpoints => ({
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default', resourceVersion: '42', labels }, ...(subsets ? { subsets } : {}),
  });
  const ready = [pod('a', { ip: '10.244.0.2' })];
  const readySubsets = [{ addresses: [address('a', '10.244.0.2')], ports: port80 }];

  it('creates the Endpoints, named as the Service, with its labels', () => {
    expect(planEndpoints(key, service({}, { tier: 'front' }), ready, undefined)).toEqual([
      { type: 'create', endpoints: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default', labels: { tier: 'front' } }, subsets: readySubsets } },
    ]);
  });

  it('creates empty Endpoints for a Service no pod backs', () => {
    expect(planEndpoints(key, service(), [], undefined)).toEqual([{ type: 'create', endpoints: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' } } }]);
  });

  it('marks the Endpoints of a headless Service', () => {
    const [action] = planEndpoints(key, service({ clusterIP: 'None' }), ready, undefined);
    expect(action?.type === 'create' && action.endpoints.metadata.labels).toEqual({ [HEADLESS_LABEL]: '' });
  });

  it('writes nothing when the Endpoints already say it (whatever the key order)', () => {
    const reordered = [{ ports: [{ protocol: 'TCP', port: 8080 }], addresses: [{ targetRef: address('a', '10.244.0.2').targetRef, nodeName: 'edge-1', ip: '10.244.0.2' }] }];
    expect(planEndpoints(key, service(), ready, current(reordered))).toEqual([]);
  });

  it('updates changed Endpoints over the version it read', () => {
    const [action] = planEndpoints(key, service(), [pod('a', { ip: '10.244.0.2', ready: false })], current(readySubsets));
    expect(action).toEqual({
      type: 'update',
      endpoints: { ...current(), subsets: [{ notReadyAddresses: [address('a', '10.244.0.2')], ports: port80 }] },
    });
    expect(planEndpoints(key, service({}, { v: '2' }), ready, current(readySubsets))[0]?.type).toBe('update');
    const emptied = planEndpoints(key, service(), [], current(readySubsets))[0];
    expect(emptied?.type === 'update' && 'subsets' in emptied.endpoints).toBe(false);
  });

  it('leaves the Endpoints of a Service without selector, or of an ExternalName one, alone', () => {
    const manual = current([{ addresses: [{ ip: '192.168.1.9' }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
    expect(planEndpoints(key, service({ selector: undefined }), ready, manual)).toEqual([]);
    expect(planEndpoints(key, service({ selector: {} }), ready, undefined)).toEqual([]);
    expect(planEndpoints(key, service({ type: 'ExternalName', externalName: 'db.example.com' }), ready, manual)).toEqual([]);
  });

  it('deletes the Endpoints of a Service that is gone', () => {
    expect(planEndpoints(key, undefined, ready, current(readySubsets))).toEqual([{ type: 'delete', namespace: 'default', name: 'web' }]);
    expect(planEndpoints(key, undefined, ready, undefined)).toEqual([]);
  });
});
