import type { EndpointAddress, EndpointPort, EndpointSubset, Service, ServicePort } from '../../../shared/service-types.js';
import type { Container, Pod } from '../../../shared/types.js';

/**
 * The subsets of a Service's Endpoints, from the pods its selector picked, as kube's
 * endpoints controller builds them (syncService, then RepackSubsets): one entry per pod
 * and service port, grouped so that addresses offering the same ports share a subset.
 * Pure; the order is deterministic (addresses by IP then pod uid, ports by name).
 */
export function endpointSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
  const ports = service.spec.ports ?? [];
  const publishNotReady = service.spec.publishNotReadyAddresses === true;
  const entries: Entry[] = [];
  for (const pod of pods) {
    if (!belongsInEndpoints(pod, publishNotReady)) continue;
    const address = addressOf(service, pod);
    if (!address) continue;
    const ready = publishNotReady || isPodReady(pod);
    // A headless Service may have no ports: its pods are listed by address alone.
    if (ports.length === 0 && service.spec.clusterIP === 'None') entries.push({ address, ready });
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port !== undefined) entries.push({ address, ready, port: endpointPort(servicePort, port) });
    }
  }
  return repack(entries);
}

interface Entry {
  address: EndpointAddress;
  ready: boolean;
  port?: EndpointPort;
}

/** ShouldPodBeInEndpoints: not finished, has an IP, and not terminating (unless not-ready ones are published). */
export function belongsInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!pod.status?.podIP && (pod.status?.podIPs ?? []).length === 0) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The pod's address of the Service's first IP family, pointing back at the pod. */
function addressOf(service: Service, pod: Pod): EndpointAddress | undefined {
  const wantV6 = service.spec.ipFamilies?.[0] === 'IPv6';
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip);
  const ip = (ips.length > 0 ? ips : [pod.status?.podIP ?? '']).find((candidate) => candidate !== '' && candidate.includes(':') === wantV6);
  if (!ip) return undefined;
  const { namespace, name, uid } = pod.metadata;
  const address: EndpointAddress = { ip };
  const hostname = pod.spec.hostname;
  if (typeof hostname === 'string' && hostname && pod.spec.subdomain === service.metadata.name && namespace === service.metadata.namespace) address.hostname = hostname;
  if (pod.spec.nodeName) address.nodeName = pod.spec.nodeName;
  address.targetRef = { kind: 'Pod', namespace, name, uid };
  return address;
}

/**
 * FindPort: a numeric targetPort as is; a named one is the container port of that name and
 * protocol (sidecar init containers included). Undefined when the pod has no such port.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const sidecars = (pod.spec.initContainers ?? []).filter((c: Container) => c.restartPolicy === 'Always');
  for (const container of [...(pod.spec.containers ?? []), ...sidecars]) {
    const match = (container.ports ?? []).find((p) => p.name === target && (p.protocol ?? 'TCP') === (servicePort.protocol ?? 'TCP'));
    if (match) return match.containerPort;
  }
  return undefined;
}

function endpointPort(servicePort: ServicePort, port: number): EndpointPort {
  const { name, appProtocol, protocol = 'TCP' } = servicePort;
  return { ...(name ? { name } : {}), port, protocol, ...(appProtocol ? { appProtocol } : {}) };
}

/** RepackSubsets: addresses by port (ready wins over not ready), then ports grouped by identical address sets. */
function repack(entries: Entry[]): EndpointSubset[] {
  const byPort = new Map<string, { port?: EndpointPort; addresses: Map<string, { address: EndpointAddress; ready: boolean }> }>();
  for (const { address, ready, port } of entries) {
    const portKey = port ? JSON.stringify(port) : '';
    let group = byPort.get(portKey);
    if (!group) byPort.set(portKey, (group = { port, addresses: new Map() }));
    const addressKey = `${address.ip}/${address.targetRef?.uid ?? ''}`;
    const seen = group.addresses.get(addressKey);
    if (!seen || !seen.ready) group.addresses.set(addressKey, { address, ready });
  }
  const bySet = new Map<string, EndpointSubset>();
  for (const { port, addresses } of byPort.values()) {
    const sorted = [...addresses.values()].sort((a, b) => compareAddresses(a.address, b.address));
    const setKey = JSON.stringify(sorted.map((a) => [a.address, a.ready]));
    let subset = bySet.get(setKey);
    if (!subset) bySet.set(setKey, (subset = subsetOf(sorted)));
    if (port) subset.ports = [...(subset.ports ?? []), port].sort(comparePorts);
  }
  return [...bySet.values()].sort(compareSubsets);
}

function subsetOf(sorted: { address: EndpointAddress; ready: boolean }[]): EndpointSubset {
  const ready = sorted.filter((a) => a.ready).map((a) => a.address);
  const notReady = sorted.filter((a) => !a.ready).map((a) => a.address);
  const subset: EndpointSubset = {};
  if (ready.length > 0) subset.addresses = ready;
  if (notReady.length > 0) subset.notReadyAddresses = notReady;
  return subset;
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** LessEndpointAddress: by IP (as text), then by the pod's uid. */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return compareText(a.ip, b.ip) || compareText(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
}

function comparePorts(a: EndpointPort, b: EndpointPort): number {
  return compareText(a.name ?? '', b.name ?? '') || a.port - b.port || compareText(a.protocol ?? '', b.protocol ?? '');
}

function compareSubsets(a: EndpointSubset, b: EndpointSubset): number {
  const first = (s: EndpointSubset): EndpointAddress | undefined => s.addresses?.[0] ?? s.notReadyAddresses?.[0];
  const [x, y] = [first(a), first(b)];
  const byAddress = x && y ? compareAddresses(x, y) : 0;
  return byAddress || compareText(JSON.stringify(a.ports ?? []), JSON.stringify(b.ports ?? []));
}
