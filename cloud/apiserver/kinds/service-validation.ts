import type { StatusCause } from '../../../shared/errors.js';
import type { Service, ServicePort, ServiceSpec } from '../../../shared/service-types.js';
import type { KubeObject } from '../../../shared/types.js';
import { checkLabel, checkSubdomain, invalidValue, required, unsupported } from '../admission/admission.js';
import type { AdmissionContext } from './registry.js';
import { isHeadless } from './service-defaults.js';
import { parseIPv4 } from './service-ranges.js';

/** Service validation as kube-apiserver words it (ValidateService, ValidateServiceUpdate), the parts kedge serves. */

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const affinities = ['ClientIP', 'None'];

export function validateService(obj: KubeObject, ctx: AdmissionContext): StatusCause[] {
  const spec = (obj as Service).spec;
  if (!isObject(spec)) return [required('spec')];
  const causes = [...nameIsDns1035(obj.metadata.name), ...validateType(spec), ...validatePorts(spec), ...validateClusterIPs(spec)];
  if (!affinities.includes(spec.sessionAffinity ?? '')) causes.push(unsupported('spec.sessionAffinity', spec.sessionAffinity, affinities));
  for (const [key, value] of Object.entries(isObject(spec.selector) ? spec.selector : {})) {
    if (typeof value !== 'string') causes.push(invalidValue(`spec.selector.${key}`, value, 'must be a string'));
  }
  const old = ctx.old as Service | undefined;
  if (old) causes.push(...clusterIPsUnchanged(spec, old.spec), ...primaryFamilyUnchanged(spec, old.spec), ...loadBalancerClassUnchanged(spec, old.spec));
  return causes;
}

/** Service names are DNS-1035 labels: a label (checked for every name) that starts with a letter. */
function nameIsDns1035(name: string | undefined): StatusCause[] {
  if (!name || !/^[0-9]/.test(name)) return [];
  return [invalidValue('metadata.name', name, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")];
}

function validateType(spec: ServiceSpec): StatusCause[] {
  if (!spec.type) return [required('spec.type')];
  if (!serviceTypes.includes(spec.type)) return [unsupported('spec.type', spec.type, serviceTypes)];
  const causes: StatusCause[] = [];
  if (spec.type === 'ExternalName') {
    if ((spec.clusterIPs ?? []).length > 0) causes.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    causes.push(...(cname ? checkSubdomain('spec.externalName', cname) : [required('spec.externalName')]));
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && isHeadless(spec)) {
    causes.push(invalidValue('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${spec.type} services`));
  }
  return causes;
}

function validatePorts(spec: ServiceSpec): StatusCause[] {
  if (spec.ports !== undefined && !Array.isArray(spec.ports)) return [invalidValue('spec.ports', spec.ports, 'must be a list')];
  const ports = spec.ports ?? [];
  const causes: StatusCause[] = [];
  if (ports.length === 0 && !isHeadless(spec) && spec.type !== 'ExternalName') causes.push(required('spec.ports'));
  const names = new Set<string>();
  const seen = new Set<string>();
  const seenNodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    if (!isObject(port)) return void causes.push(invalidValue(at, port, 'must be an object'));
    causes.push(...validatePort(port, at, ports.length > 1, names));
    if (spec.type === 'ClusterIP' && port.nodePort) causes.push(forbidden(`${at}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
    const key = `${port.protocol}/${port.port}`;
    if (seen.has(key)) causes.push(duplicate(at, `core.ServicePort{Protocol:"${port.protocol}", Port:${port.port}}`));
    seen.add(key);
    const nodeKey = `${port.protocol}/${port.nodePort}`;
    if (port.nodePort && seenNodePorts.has(nodeKey)) causes.push(duplicate(`${at}.nodePort`, port.nodePort));
    seenNodePorts.add(nodeKey);
  });
  return causes;
}

function validatePort(port: ServicePort, at: string, requireName: boolean, names: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  if (requireName && !port.name) causes.push(required(`${at}.name`));
  else if (port.name) {
    causes.push(...checkLabel(`${at}.name`, port.name));
    if (names.has(port.name)) causes.push(duplicate(`${at}.name`, port.name));
    names.add(port.name);
  }
  if (!validPortNumber(port.port)) causes.push(invalidValue(`${at}.port`, port.port, 'must be between 1 and 65535, inclusive'));
  if (!port.protocol) causes.push(required(`${at}.protocol`));
  else if (!protocols.includes(port.protocol)) causes.push(unsupported(`${at}.protocol`, port.protocol, protocols));
  const target = port.targetPort;
  if (typeof target === 'number') {
    if (!validPortNumber(target)) causes.push(invalidValue(`${at}.targetPort`, target, 'must be between 1 and 65535, inclusive'));
  } else {
    const why = portNameProblem(target);
    if (why) causes.push(invalidValue(`${at}.targetPort`, target, why));
  }
  return causes;
}

function validateClusterIPs(spec: ServiceSpec): StatusCause[] {
  if (spec.type === 'ExternalName') return [];
  const ips = spec.clusterIPs ?? [];
  if (!Array.isArray(ips)) return [invalidValue('spec.clusterIPs', ips, 'must be a list')];
  if (spec.clusterIP && ips.length === 0) return [required('spec.clusterIPs')];
  if (spec.clusterIP && ips[0] !== spec.clusterIP) return [invalidIPs('spec.clusterIPs', goStrings(ips), 'first value must match `clusterIP`')];
  if (!spec.clusterIP && ips.length > 0) return [invalidIPs('spec.clusterIPs', goStrings(ips), 'must be empty when `clusterIP` is not specified')];
  const causes: StatusCause[] = [];
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') return;
    if (typeof ip !== 'string' || parseIPv4(ip) === undefined) causes.push(invalidValue(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  if (ips.length > 1) causes.push(invalidIPs('spec.clusterIPs', goStrings(ips), 'may specify no more than one IP for each IP family'));
  return causes;
}

/** ValidateServiceUpdate: the primary clusterIP is fixed for life, except to or from ExternalName. */
function clusterIPsUnchanged(spec: ServiceSpec, old: ServiceSpec): StatusCause[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName') return [];
  if (isHeadless(spec) && isHeadless(old)) return [];
  const [was, now] = [old.clusterIPs ?? [], spec.clusterIPs ?? []];
  if (was.length > 0 && now.length === 0) return [invalidIPs('spec.clusterIPs[0]', goStrings(now), 'primary clusterIP can not be unset')];
  if (was.length > 0 && now[0] !== was[0]) return [invalidIPs('spec.clusterIPs[0]', goStrings(now), 'may not change once set')];
  if (was.length > 1 && now.length > 1 && now[1] !== was[1]) return [invalidIPs('spec.clusterIPs[1]', goStrings(now), 'may not change once set')];
  return [];
}

/** validateUpgradeDowngradeIPFamilies: the primary IP family is fixed, except to or from ExternalName or headless. */
function primaryFamilyUnchanged(spec: ServiceSpec, old: ServiceSpec): StatusCause[] {
  if (spec.type === 'ExternalName' || old.type === 'ExternalName' || isHeadless(old)) return [];
  const [was, now] = [old.ipFamilies ?? [], spec.ipFamilies ?? []];
  if (was.length === 0 || now.length === 0 || was[0] === now[0]) return [];
  return [invalidIPs('spec.ipFamilies[0]', `[]core.IPFamily{${now.map((f) => JSON.stringify(f)).join(', ')}}`, 'may not change once set')];
}

/** validateLoadBalancerClassField: a LoadBalancer Service keeps its class. */
function loadBalancerClassUnchanged(spec: ServiceSpec, old: ServiceSpec): StatusCause[] {
  if (spec.type !== 'LoadBalancer' || old.type !== 'LoadBalancer' || spec.loadBalancerClass === old.loadBalancerClass) return [];
  return [invalidValue('spec.loadBalancerClass', spec.loadBalancerClass ?? 'null', 'may not change once set')];
}

/** IANA_SVC_NAME (validation.IsValidPortName): the first reason a name is not one, or undefined. */
function portNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'must be a port number or name';
  if (name.length > 15) return 'must be no more than 15 characters';
  if (!/^[-a-z0-9]+$/.test(name)) return 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)';
  if (!/[a-z]/.test(name)) return 'must contain at least one letter (a-z)';
  if (name.startsWith('-') || name.endsWith('-')) return 'must not begin or end with a hyphen';
  if (name.includes('--')) return 'must not contain consecutive hyphens';
  return undefined;
}

function validPortNumber(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** A list of strings as Go's %#v prints it in kube's messages: []string{"10.96.0.10"}. */
export function goStrings(list: readonly unknown[]): string {
  return `[]string{${list.map((s) => JSON.stringify(String(s))).join(', ')}}`;
}

function invalidIPs(field: string, printed: string, why: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${printed}: ${why}`, field };
}

function forbidden(field: string, why: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field };
}

function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${typeof value === 'string' && !value.startsWith('core.') ? JSON.stringify(value) : String(value)}`, field };
}

function isObject<T>(value: T): value is T & object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
