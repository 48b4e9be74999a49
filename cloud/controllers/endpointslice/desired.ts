import type { AddressType, SliceEndpoint, SlicePort } from '../../../shared/cluster-object-types.js';
import type { Service, ServicePort } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';
import { belongsInEndpoints, findPort, isPodReady } from '../endpoints/subsets.js';

/** One group of endpoints that offer the same ports (kube's endpointMeta: ports and address type). */
export interface EndpointGroup {
  ports: SlicePort[];
  endpoints: SliceEndpoint[];
}

/** The address type of a Service's slices: its first IP family (IPv4 without one). */
export function addressTypeOf(service: Service): AddressType {
  return service.spec.ipFamilies?.[0] === 'IPv6' ? 'IPv6' : 'IPv4';
}

/**
 * The endpoints of a Service, from the pods its selector picked, as kube's endpointslice
 * controller builds them: every pod that belongs (terminating ones too, marked so), one
 * endpoint per pod with its address of the slice's type, grouped by the ports the pod offers.
 * Pure; the order is deterministic (groups by ports, endpoints by address then pod uid).
 */
export function endpointGroups(service: Service, pods: readonly Pod[]): EndpointGroup[] {
  const addressType = addressTypeOf(service);
  const publishNotReady = service.spec.publishNotReadyAddresses === true;
  const groups = new Map<string, EndpointGroup>();
  for (const pod of pods) {
    if (!belongsInEndpoints(pod, true)) continue;
    const address = addressOf(pod, addressType);
    if (!address) continue;
    const ports = portsOf(service, pod);
    const key = JSON.stringify(ports);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports, endpoints: [] }));
    group.endpoints.push(endpointOf(service, pod, address, publishNotReady));
  }
  for (const group of groups.values()) group.endpoints.sort(compareEndpoints);
  return [...groups.entries()].sort(([a], [b]) => compareText(a, b)).map(([, group]) => group);
}

function endpointOf(service: Service, pod: Pod, address: string, publishNotReady: boolean): SliceEndpoint {
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  const serving = publishNotReady || isPodReady(pod);
  const endpoint: SliceEndpoint = { addresses: [address], conditions: { ready: serving && !terminating, serving, terminating } };
  const { namespace, name, uid } = pod.metadata;
  const hostname = pod.spec.hostname;
  if (typeof hostname === 'string' && hostname && pod.spec.subdomain === service.metadata.name) endpoint.hostname = hostname;
  if (pod.spec.nodeName) endpoint.nodeName = pod.spec.nodeName;
  endpoint.targetRef = { kind: 'Pod', namespace, name, uid };
  return endpoint;
}

/** The pod's first address of the slice's type. */
function addressOf(pod: Pod, addressType: AddressType): string | undefined {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip);
  return (ips.length > 0 ? ips : [pod.status?.podIP ?? '']).find((ip) => ip !== '' && ip.includes(':') === (addressType === 'IPv6'));
}

/** The Service's ports as this pod offers them (a named targetPort the pod lacks is left out), by name. */
function portsOf(service: Service, pod: Pod): SlicePort[] {
  const ports: SlicePort[] = [];
  for (const servicePort of service.spec.ports ?? []) {
    const port = findPort(pod, servicePort);
    if (port !== undefined) ports.push(slicePort(servicePort, port));
  }
  return ports.sort((a, b) => compareText(a.name ?? '', b.name ?? '') || (a.port ?? 0) - (b.port ?? 0));
}

function slicePort(servicePort: ServicePort, port: number): SlicePort {
  const { name = '', appProtocol, protocol = 'TCP' } = servicePort;
  return { name, port, protocol, ...(appProtocol ? { appProtocol } : {}) };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function compareEndpoints(a: SliceEndpoint, b: SliceEndpoint): number {
  return compareText(a.addresses[0] ?? '', b.addresses[0] ?? '') || compareText(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
}
