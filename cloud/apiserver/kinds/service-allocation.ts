import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import type { Service, ServiceSpec } from '../../../shared/service-types.js';
import type { KubeObject } from '../../../shared/types.js';
import { invalid } from '../admission/admission.js';
import type { PrepareContext } from './registry.js';
import { defaultService, dropTypeDependentFields, initIPFamilies, isHeadless, keepAllocated, needsNodePorts, nodePortsOf, syncClusterIPs } from './service-defaults.js';
import { ipInRange, nodePorts, parseIPv4, pickNodePort, pickServiceIP, portInRange, serviceIPs, type IPRange, type PortRange } from './service-ranges.js';
import { goStrings } from './service-validation.js';

/**
 * A Service's prepare step: defaults, then a clusterIP and nodePorts that no other Service
 * holds (the apiserver runs these one at a time, so "free in the list" stays free; apiservers
 * sharing a store also see each other's picks not yet written: rest/reservations.ts). What a
 * Service held before an update stays its own; a requested value out of range or held by
 * another Service is a 422, as kube-apiserver's allocators answer.
 */
export async function prepareService(obj: KubeObject, ctx: PrepareContext): Promise<void> {
  const svc = obj as Service;
  const old = ctx.old as Service | undefined;
  defaultService(svc);
  if (old) {
    keepAllocated(svc.spec, old.spec);
    dropTypeDependentFields(svc.spec, old.spec);
  } else {
    svc.status = { loadBalancer: {} };
  }
  syncClusterIPs(svc.spec, old?.spec);
  initIPFamilies(svc.spec, old?.spec);
  const others = (await ctx.others()) as Service[];
  const causes = [...allocateClusterIP(svc.spec, old?.spec, others), ...allocateNodePorts(svc.spec, others)];
  if (causes.length > 0) throw invalid({ kind: 'Service', group: '' }, svc.metadata.name ?? '', causes);
}

/** A clusterIP on create (or when leaving ExternalName); updates otherwise keep theirs. */
export function allocateClusterIP(spec: ServiceSpec, old: ServiceSpec | undefined, others: Service[], range: IPRange = serviceIPs): StatusCause[] {
  if (spec.type === 'ExternalName' || isHeadless(spec)) return [];
  if (old && old.type !== 'ExternalName') return [];
  const used = new Set(others.flatMap((s) => clusterIPsOf(s.spec)));
  const requested = spec.clusterIP;
  if (!requested) {
    const ip = pickServiceIP(range, used);
    if (!ip) throw new KedgeError('Internal', 'Internal error occurred: failed to allocate a serviceIP: range is full');
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    return [];
  }
  if (typeof requested !== 'string' || parseIPv4(requested) === undefined) return []; // validation says why
  const why = !ipInRange(range, requested)
    ? `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${range.cidr}`
    : used.has(requested) ? 'provided IP is already allocated' : undefined;
  if (!why) return [];
  return [{ reason: 'FieldValueInvalid', field: 'spec.clusterIPs', message: `Invalid value: ${goStrings(spec.clusterIPs ?? [requested])}: failed to allocate IP ${requested}: ${why}` }];
}

/**
 * nodePorts for a NodePort (or LoadBalancer) Service: requested ones are checked, missing ones
 * picked; ports with the same number (TCP and UDP) share one nodePort, as kube's initNodePorts.
 */
export function allocateNodePorts(spec: ServiceSpec, others: Service[], range: PortRange = nodePorts): StatusCause[] {
  if (!needsNodePorts(spec) || !Array.isArray(spec.ports)) return [];
  const used = new Set(others.flatMap((s) => nodePortsOf(s.spec ?? {})).filter((p) => p !== 0));
  const byPort = new Map<number, number>();
  const causes: StatusCause[] = [];
  spec.ports.forEach((port, i) => {
    if (typeof port !== 'object' || port === null || !port.nodePort) return;
    const why = !portInRange(range, port.nodePort)
      ? `provided port is not in the valid range. The range of valid ports is ${range.min}-${range.max}`
      : used.has(port.nodePort) ? 'provided port is already allocated' : undefined;
    if (why) causes.push({ reason: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, message: `Invalid value: ${port.nodePort}: ${why}` });
    if (!byPort.has(port.port)) byPort.set(port.port, port.nodePort);
  });
  const taken = new Set([...used, ...byPort.values()]);
  for (const port of spec.ports) {
    if (typeof port !== 'object' || port === null || port.nodePort) continue;
    const picked = byPort.get(port.port) ?? pickNodePort(range, taken);
    if (picked === undefined) throw new KedgeError('Internal', 'Internal error occurred: failed to allocate a nodePort: range is full');
    port.nodePort = picked;
    byPort.set(port.port, picked);
    taken.add(picked);
  }
  return causes;
}

function clusterIPsOf(spec: ServiceSpec | undefined): string[] {
  if (!spec) return [];
  const ips = Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0 ? spec.clusterIPs : [spec.clusterIP];
  return ips.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
}

/**
 * A Service as far as its unique values go, for the reservation of what it picked
 * (rest/reservations.ts); undefined when it holds none, or the same as before the update.
 */
export function serviceReservation(obj: KubeObject, old?: KubeObject): KubeObject | undefined {
  const held = (s: Service | undefined) => ({ clusterIPs: clusterIPsOf(s?.spec), nodePorts: nodePortsOf(s?.spec ?? {}).filter((p) => p !== 0) });
  const now = held(obj as Service);
  if (now.clusterIPs.length === 0 && now.nodePorts.length === 0) return undefined;
  if (old && JSON.stringify(held(old as Service)) === JSON.stringify(now)) return undefined;
  const { namespace, name } = obj.metadata;
  const spec: ServiceSpec = { clusterIPs: now.clusterIPs, ports: now.nodePorts.map((nodePort) => ({ port: nodePort, nodePort })) };
  return { metadata: { namespace, name }, spec } as KubeObject;
}
