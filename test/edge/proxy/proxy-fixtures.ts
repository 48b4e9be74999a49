import type { EndpointAddress, Endpoints, Service, ServicePort, ServiceSpec } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

/** A Service `name` in `default` with a ClusterIP and `ports`; `spec` overrides. */
export function service(name: string, ports: ServicePort[], spec: Partial<ServiceSpec> = {}, namespace = 'default'): Service & { kind: 'Service' } {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, uid: `svc-${namespace}-${name}`, resourceVersion: '1' },
    spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', ports, ...spec },
  };
}

/** An address of a pod `pod` on `node`. */
export function address(ip: string, node = 'edge-2', pod?: string): EndpointAddress {
  return { ip, nodeName: node, ...(pod ? { targetRef: { kind: 'Pod', namespace: 'default', name: pod, uid: `uid-${pod}` } } : {}) };
}

/** The Endpoints of Service `name`: one subset with these ready addresses and ports. */
export function endpoints(name: string, addresses: EndpointAddress[], ports: { name?: string; port: number; protocol?: string }[], notReady: EndpointAddress[] = [], namespace = 'default'): Endpoints & { kind: 'Endpoints' } {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace, uid: `ep-${namespace}-${name}`, resourceVersion: '1' },
    subsets: [{ addresses, notReadyAddresses: notReady, ports }],
  };
}

/** A pod `name` (uid `uid-<name>`) on edge-1 in this phase, Ready or not. */
export function podOn(name: string, ready: boolean, phase: 'Running' | 'Pending' | 'Failed' = 'Running', node = 'edge-1'): Pod & { kind: 'Pod' } {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1' },
    spec: { nodeName: node, containers: [{ name: 'app' }] },
    status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}
