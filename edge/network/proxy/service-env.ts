import type { Service, ServicePort } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';
import { hasClusterIP, servicePortKey } from './service-rules.js';

/** The Service every pod gets variables for, enableServiceLinks or not (kubelet's master service). */
const MASTER_SERVICE = { namespace: 'default', name: 'kubernetes' };

/** Where a Service port is reached from a pod on this node. */
export type PortalLookup = (key: string) => { host: string; port: number } | undefined;

/** kubelet's makeEnvVariableName: upper case, `-` to `_`. */
export const envName = (name: string): string => name.toUpperCase().replace(/-/g, '_');

/** `host:port`, with an IPv6 host in brackets (Go's net.JoinHostPort). */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * The Services whose variables a pod gets (kubelet's getServiceEnvVarMap): `kubernetes` in
 * `default` always, every Service of the pod's namespace unless `enableServiceLinks` is false
 * (one there of the same name wins); none without a ClusterIP.
 */
export function servicesForPod(pod: Pod, services: readonly Service[]): Service[] {
  const namespace = pod.metadata.namespace ?? 'default';
  const links = pod.spec.enableServiceLinks !== false;
  const byName = new Map<string, Service>();
  for (const s of services) {
    const ns = s.metadata.namespace ?? 'default';
    const name = s.metadata.name ?? '';
    if (!hasClusterIP(s) || (s.spec.ports ?? []).length === 0) continue;
    if (ns === namespace && links) byName.set(name, s);
    else if (ns === MASTER_SERVICE.namespace && name === MASTER_SERVICE.name && !byName.has(name)) byName.set(name, s);
  }
  return [...byName.values()];
}

/** Where a port is reached: this node's portal for it, else (no rule here yet) the ClusterIP and port. */
function addressOf(service: Service, port: ServicePort, portals: PortalLookup): { host: string; port: number } {
  const key = servicePortKey(service.metadata.namespace ?? 'default', service.metadata.name ?? '', port.name);
  return ((port.protocol ?? 'TCP') === 'TCP' ? portals(key) : undefined) ?? { host: service.spec.clusterIP!, port: port.port };
}

/** Docker-link variables of every port: `<NAME>_PORT` for the first, `<NAME>_PORT_<port>_<PROTO>*` for each. */
function linkVariables(service: Service, prefix: string, portals: PortalLookup): [string, string][] {
  const out: [string, string][] = [];
  (service.spec.ports ?? []).forEach((port, i) => {
    const protocol = port.protocol ?? 'TCP';
    const at = addressOf(service, port, portals);
    const url = `${protocol.toLowerCase()}://${joinHostPort(at.host, at.port)}`;
    if (i === 0) out.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
    out.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol.toLowerCase()], [`${portPrefix}_PORT`, String(at.port)], [`${portPrefix}_ADDR`, at.host]);
  });
  return out;
}

/**
 * kubelet's FromServices, with this node's portals in place of the ClusterIP: a process pod
 * reaches `$<NAME>_SERVICE_HOST:$<NAME>_SERVICE_PORT` through kube-proxy's portal on the node
 * address (kedge installs no iptables rule to catch the ClusterIP). The names keep the
 * Service's own port numbers (`_PORT_6379_TCP`). A port with no portal here yet gets the
 * ClusterIP and Service port, as a node without the kube-proxy rule would.
 */
export function serviceEnvVars(services: readonly Service[], portals: PortalLookup): [string, string][] {
  const out: [string, string][] = [];
  for (const service of services) {
    const ports = service.spec.ports ?? [];
    if (!hasClusterIP(service) || ports.length === 0) continue;
    const prefix = envName(service.metadata.name ?? '');
    const first = addressOf(service, ports[0]!, portals);
    out.push([`${prefix}_SERVICE_HOST`, first.host], [`${prefix}_SERVICE_PORT`, String(first.port)]);
    for (const port of ports) {
      if (port.name) out.push([`${prefix}_SERVICE_PORT_${envName(port.name)}`, String(addressOf(service, port, portals).port)]);
    }
    out.push(...linkVariables(service, prefix, portals));
  }
  return out;
}

/** A pod's service variables, by name: what edged adds to each of its containers where the name is unset. */
export function podServiceEnv(pod: Pod, services: readonly Service[], portals: PortalLookup): Map<string, string> {
  return new Map(serviceEnvVars(servicesForPod(pod, services), portals));
}
