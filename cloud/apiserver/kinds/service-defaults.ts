import type { Service, ServicePort, ServiceSpec } from '../../../shared/service-types.js';

/**
 * What kube-apiserver fills in or carries over on a Service before allocating and validating:
 * SetDefaults_Service, the strategy's clusterIP/clusterIPs sync and type-dependent clean-up,
 * the REST layer's "keep what was allocated" on update, and the IP family fields. Each
 * function mutates the Service it is given and is safe to run twice.
 */

const needsClusterIP = (spec: ServiceSpec): boolean => spec.type !== 'ExternalName';

export function needsNodePorts(spec: ServiceSpec): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

export function isHeadless(spec: ServiceSpec): boolean {
  return spec.clusterIP === 'None';
}

/** SetDefaults_Service (core/v1 defaults.go). */
export function defaultService(svc: Service): void {
  svc.spec = isObject(svc.spec) ? svc.spec : {};
  const spec = svc.spec;
  spec.type ||= 'ClusterIP';
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = spec.sessionAffinityConfig?.clientIP ?? {};
    clientIP.timeoutSeconds ??= 10800;
    spec.sessionAffinityConfig = { ...spec.sessionAffinityConfig, clientIP };
  }
  for (const port of Array.isArray(spec.ports) ? spec.ports : []) if (isObject(port)) defaultPort(port);
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ||= 'Cluster';
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ||= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

function defaultPort(port: ServicePort): void {
  port.protocol ||= 'TCP';
  if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
}

/** clusterIP and clusterIPs[0] say the same thing: whichever the user set fills the other. */
export function syncClusterIPs(spec: ServiceSpec, old?: ServiceSpec): void {
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  const userChangedOnlyClusterIP = old !== undefined && spec.clusterIP !== old.clusterIP && sameList(ips, old.clusterIPs);
  if (spec.clusterIP && (ips.length === 0 || userChangedOnlyClusterIP)) spec.clusterIPs = [spec.clusterIP];
  else if (!spec.clusterIP && ips.length > 0 && typeof ips[0] === 'string') spec.clusterIP = ips[0];
}

/** On update, values allocated before and left out of the new body are kept (patchAllocatedValues). */
export function keepAllocated(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP) spec.clusterIP = old.clusterIP;
    if (!Array.isArray(spec.clusterIPs) || spec.clusterIPs.length === 0) spec.clusterIPs = old.clusterIPs;
  }
  if (!needsNodePorts(old) || !needsNodePorts(spec) || !Array.isArray(spec.ports)) return;
  const kept = nodePortsOf(spec);
  const usedByBoth = new Set(nodePortsOf(old).filter((p) => p !== 0 && kept.includes(p)));
  const byName = new Map((old.ports ?? []).map((p) => [p.name ?? '', p.nodePort]));
  for (const port of spec.ports) {
    if (!isObject(port) || port.nodePort) continue;
    const before = byName.get(port.name ?? '');
    if (before && !usedByBoth.has(before)) port.nodePort = before;
  }
}

/** A type change drops what only the old type needed, unless the user changed it too (dropTypeDependentFields). */
export function dropTypeDependentFields(spec: ServiceSpec, old: ServiceSpec): void {
  if (needsClusterIP(old) && !needsClusterIP(spec) && sameList(spec.clusterIPs, old.clusterIPs)) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(old) && !needsNodePorts(spec) && sameList(nodePortsOf(spec), nodePortsOf(old))) {
    for (const port of spec.ports ?? []) if (isObject(port)) delete port.nodePort;
  }
  if (spec.type !== 'NodePort' && spec.type !== 'LoadBalancer' && spec.externalTrafficPolicy === old.externalTrafficPolicy) delete spec.externalTrafficPolicy;
  if (spec.type !== 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
  if (spec.type === 'ExternalName' && spec.internalTrafficPolicy === old.internalTrafficPolicy) delete spec.internalTrafficPolicy;
}

/**
 * ipFamilyPolicy and ipFamilies on this single-stack IPv4 cluster (initIPFamilyFields): the
 * old policy on update, SingleStack by default, and RequireDualStack with both families for a
 * headless Service without selector, which kube allows even on a single-stack cluster.
 */
export function initIPFamilies(spec: ServiceSpec, old?: ServiceSpec): void {
  if (!needsClusterIP(spec)) return;
  const selectorless = Object.keys(spec.selector ?? {}).length === 0;
  const headlessSelectorless = isHeadless(spec) && selectorless;
  spec.ipFamilyPolicy ||= old?.ipFamilyPolicy ?? (headlessSelectorless ? 'RequireDualStack' : 'SingleStack');
  if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
  if (headlessSelectorless && spec.ipFamilies.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
    spec.ipFamilies = [spec.ipFamilies[0]!, spec.ipFamilies[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
  }
}

export function nodePortsOf(spec: ServiceSpec): number[] {
  return (Array.isArray(spec.ports) ? spec.ports : []).map((p) => (isObject(p) && typeof p.nodePort === 'number' ? p.nodePort : 0));
}

function sameList(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}

function isObject<T>(value: T): value is T & object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
