import { isIP } from 'node:net';
import type { EndpointAddress, Endpoints, Service, ServicePort } from '../../../shared/service-types.js';
import type { Pod } from '../../../shared/types.js';

/** kube's DefaultClientIPServiceAffinitySeconds: 3 hours. */
export const DEFAULT_AFFINITY_SECONDS = 10_800;

/**
 * One Service port as kube-proxy forwards it on this node: a portal on the node address
 * (its port is the data plane's to pick) and, for NodePort and LoadBalancer Services, a
 * listener on the node address at `nodePort`, both spreading over `endpoints`.
 */
export interface ServiceRule {
  /** kube's ServicePortName, `<namespace>/<name>:<port name>`: what the rule, its portal and its balancer are keyed by. */
  key: string;
  namespace: string;
  service: string;
  portName: string;
  /** The Service's port (what the `_PORT_<port>_TCP` env names carry). */
  port: number;
  clusterIP: string;
  /** The ready endpoints, `ip:port`, sorted. */
  endpoints: string[];
  /** sessionAffinity ClientIP: how long a client IP sticks to its endpoint; absent for None. */
  affinityMs?: number;
  nodePort?: number;
}

/** What the rules are computed from: the cached Services, Endpoints and pods, and which node this is. */
export interface RuleInputs {
  services: readonly Service[];
  endpoints: readonly Endpoints[];
  /** The pods this edge holds, each with the status edged keeps current. */
  pods: readonly Pod[];
  nodeName: string;
}

export const servicePortKey = (namespace: string, name: string, portName: string | undefined): string => `${namespace}/${name}:${portName ?? ''}`;

const nameKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? 'default'}/${name ?? ''}`;

/** Whether kube-proxy programs anything for it: a ClusterIP is set (not headless, not ExternalName). */
export function hasClusterIP(service: Service): boolean {
  const ip = service.spec.clusterIP;
  return service.spec.type !== 'ExternalName' && ip !== undefined && ip !== '' && ip !== 'None';
}

const isReady = (pod: Pod): boolean =>
  pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * Whether an endpoint is served from here. One on this node whose pod the edge knows to be
 * gone, not running or not ready is left out, even if the cloud (perhaps unreachable) still
 * lists it ready: the edge knows its own pods first.
 */
function servedHere(address: EndpointAddress, namespace: string, inputs: RuleInputs, pods: ReadonlyMap<string, Pod>, publishNotReady: boolean): boolean {
  const ref = address.targetRef;
  if (address.nodeName !== inputs.nodeName || ref?.kind !== 'Pod') return true;
  const pod = pods.get(nameKey(ref.namespace ?? namespace, ref.name));
  if (!pod || (ref.uid !== undefined && pod.metadata.uid !== ref.uid)) return false;
  return publishNotReady || isReady(pod); // publishNotReadyAddresses: readiness does not count
}

/** The machine's own loopback services (the edge's local API, the broker): pods and nodes have other 127.x addresses. */
const MACHINE_LOOPBACK = new Set(['127.0.0.1', '::1']);

/**
 * Whether an endpoint address may be dialled: an IP literal, not the machine's own loopback.
 * A hand-made Endpoints naming a hostname or 127.0.0.1 would otherwise open, through a
 * NodePort, the machine's loopback-only services to the LAN.
 */
export const dialableAddress = (ip: string): boolean => isIP(ip) !== 0 && !MACHINE_LOOPBACK.has(ip);

/** The ready `ip:port` endpoints of one Service port: its Endpoints' port of the same name; addresses refused go to `refused`. */
function endpointsOf(service: Service, port: ServicePort, endpoints: Endpoints | undefined, inputs: RuleInputs, pods: ReadonlyMap<string, Pod>, refused: Set<string>): string[] {
  const publishNotReady = service.spec.publishNotReadyAddresses === true;
  const namespace = endpoints?.metadata.namespace ?? 'default';
  const out = new Set<string>();
  for (const subset of endpoints?.subsets ?? []) {
    const target = (subset.ports ?? []).find((p) => (p.name ?? '') === (port.name ?? '') && (p.protocol ?? 'TCP') === 'TCP');
    if (!target) continue;
    for (const address of subset.addresses ?? []) {
      if (!dialableAddress(address.ip)) refused.add(address.ip);
      else if (servedHere(address, namespace, inputs, pods, publishNotReady)) out.add(`${address.ip}:${target.port}`);
    }
  }
  return [...out].sort();
}

function affinityMs(service: Service): number | undefined {
  if (service.spec.sessionAffinity !== 'ClientIP') return undefined;
  return (service.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds || DEFAULT_AFFINITY_SECONDS) * 1000;
}

const hasNodePorts = (service: Service): boolean => service.spec.type === 'NodePort' || service.spec.type === 'LoadBalancer';

/**
 * The forwarding table (pure): one rule per TCP port of every Service with a ClusterIP, with
 * its ready endpoints; headless and ExternalName Services get none. UDP and SCTP ports are
 * not served by kedge's data plane and get no rule. Endpoint addresses that are not IP
 * literals, or are the machine's own loopback (127.0.0.1, ::1), are left out and listed in
 * `refused` by Service (`<namespace>/<name>`).
 */
export function serviceRules(inputs: RuleInputs, refused?: Map<string, string[]>): ServiceRule[] {
  const pods = new Map(inputs.pods.map((p) => [nameKey(p.metadata.namespace, p.metadata.name), p]));
  const endpointsByName = new Map(inputs.endpoints.map((e) => [nameKey(e.metadata.namespace, e.metadata.name), e]));
  const rules: ServiceRule[] = [];
  for (const service of inputs.services) {
    if (!hasClusterIP(service)) continue;
    const namespace = service.metadata.namespace ?? 'default';
    const name = service.metadata.name ?? '';
    const endpoints = endpointsByName.get(nameKey(namespace, name));
    const dropped = new Set<string>();
    for (const port of service.spec.ports ?? []) {
      if ((port.protocol ?? 'TCP') !== 'TCP') continue;
      const rule: ServiceRule = {
        key: servicePortKey(namespace, name, port.name),
        namespace,
        service: name,
        portName: port.name ?? '',
        port: port.port,
        clusterIP: service.spec.clusterIP!,
        endpoints: endpointsOf(service, port, endpoints, inputs, pods, dropped),
      };
      const affinity = affinityMs(service);
      if (affinity !== undefined) rule.affinityMs = affinity;
      if (hasNodePorts(service) && port.nodePort) rule.nodePort = port.nodePort;
      rules.push(rule);
    }
    if (dropped.size > 0) refused?.set(nameKey(namespace, name), [...dropped].sort());
  }
  return rules.sort((a, b) => a.key.localeCompare(b.key));
}
