import type { StatusCause } from '../../../shared/errors.js';
import { required } from '../admission/admission.js';
import { duplicate, forbidden, invalidCauses, portNameErrors, portNumberErrors, relaxedEnvVarNameErrors, requiredBecause } from '../admission/name-formats.js';

/** A container's ports, env, envFrom, probes and lifecycle handlers as kube 1.32 validates them, in its words. */

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const itemsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** validateContainerPorts: names are IANA_SVC_NAMEs unique in the container, port numbers 1–65535. */
export function validatePorts(ports: unknown, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  itemsOf(ports).forEach((p, i) => {
    const port = isMap(p) ? p : {};
    const field = `${at}[${i}]`;
    const name = text(port.name);
    if (name !== '') {
      const errs = portNameErrors(name);
      if (errs.length > 0) causes.push(...invalidCauses(`${field}.name`, name, errs));
      else if (names.has(name)) causes.push(duplicate(`${field}.name`, name));
      else names.add(name);
    }
    const { containerPort, hostPort } = port;
    if (!containerPort) causes.push(required(`${field}.containerPort`));
    else if (typeof containerPort === 'number') causes.push(...invalidCauses(`${field}.containerPort`, containerPort, portNumberErrors(containerPort)));
    if (typeof hostPort === 'number' && hostPort !== 0) causes.push(...invalidCauses(`${field}.hostPort`, hostPort, portNumberErrors(hostPort)));
  });
  return causes;
}

/** AccumulateUniqueHostPorts: one protocol/hostIP/hostPort per list of containers checked together. */
export function hostPortConflicts(containers: unknown[], at: string, taken = new Set<string>()): StatusCause[] {
  const causes: StatusCause[] = [];
  containers.forEach((c, ci) => {
    itemsOf(isMap(c) ? c.ports : undefined).forEach((p, pi) => {
      if (!isMap(p) || !p.hostPort) return;
      const key = `${text(p.protocol) || 'TCP'}/${text(p.hostIP)}/${String(p.hostPort)}`;
      if (taken.has(key)) causes.push(duplicate(`${at}[${ci}].ports[${pi}].hostPort`, key));
      else taken.add(key);
    });
  });
  return causes;
}

const ENV_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'];

/** ValidateEnv: names by the relaxed rule, and a valueFrom with exactly one source and no `value` beside it. */
export function validateEnv(env: unknown, at: string): StatusCause[] {
  return itemsOf(env).flatMap((e, i) => {
    const item = isMap(e) ? e : {};
    const field = `${at}[${i}]`;
    const name = text(item.name);
    const causes = name === '' ? [required(`${field}.name`)] : invalidCauses(`${field}.name`, name, relaxedEnvVarNameErrors(name));
    if (!isMap(item.valueFrom)) return causes;
    const sources = ENV_SOURCES.filter((s) => isSet((item.valueFrom as Json)[s])).length;
    const from = `${field}.valueFrom`;
    if (sources === 0) causes.push(...invalidCauses(from, '', ['must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`']));
    else if (text(item.value) !== '') causes.push(...invalidCauses(from, '', ['may not be specified when `value` is not empty']));
    else if (sources > 1) causes.push(...invalidCauses(from, '', ['may not have more than one field specified at a time']));
    return causes;
  });
}

/** ValidateEnvFrom: a prefix by the env name rule, exactly one of configMapRef and secretRef (kube names the list, not the item). */
export function validateEnvFrom(envFrom: unknown, at: string): StatusCause[] {
  return itemsOf(envFrom).flatMap((e, i) => {
    const item = isMap(e) ? e : {};
    const prefix = text(item.prefix);
    const causes = prefix === '' ? [] : invalidCauses(`${at}[${i}].prefix`, prefix, relaxedEnvVarNameErrors(prefix));
    const sources = ['configMapRef', 'secretRef'].filter((s) => isSet(item[s])).length;
    if (sources === 0) causes.push(...invalidCauses(at, '', ['must specify one of: `configMapRef` or `secretRef`']));
    else if (sources > 1) causes.push(...invalidCauses(at, '', ['may not have more than one field specified at a time']));
    return causes;
  });
}

/** ValidatePortNumOrName: a number in 1–65535, or an IANA_SVC_NAME (a string, even "8080", is a name). */
function portNumOrName(port: unknown, field: string): StatusCause[] {
  if (typeof port === 'number') return invalidCauses(field, port, portNumberErrors(port));
  if (typeof port === 'string') return invalidCauses(field, port, portNameErrors(port));
  return invalidCauses(field, 0, portNumberErrors(0));
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

/** validateHandler: exactly one handler type, its command or port valid. */
function handlerCauses(handler: Json, kinds: string[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (!isSet(action)) continue;
    const field = `${at}.${kind}`;
    if (count++ > 0) {
      causes.push(forbidden(field, 'may not specify more than 1 handler type'));
      continue;
    }
    const body = isMap(action) ? action : {};
    if (kind === 'exec' && itemsOf(body.command).length === 0) causes.push(required(`${field}.command`));
    if (kind === 'httpGet' || kind === 'tcpSocket') causes.push(...portNumOrName(body.port, `${field}.port`));
    if (kind === 'grpc') {
      const port = typeof body.port === 'number' ? body.port : 0;
      causes.push(...invalidCauses(`${field}.port`, port, portNumberErrors(port)));
    }
  }
  return count === 0 ? [...causes, requiredBecause(at, 'must specify a handler type')] : causes;
}

const PROBE_COUNTS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'];

/** validateProbe and the liveness/readiness/startup rules. A successThreshold of 0 is defaulted to 1 by kube, so it passes. */
export function probeCauses(probe: unknown, kind: 'livenessProbe' | 'readinessProbe' | 'startupProbe', at: string): StatusCause[] {
  if (!isMap(probe)) return [];
  const causes = handlerCauses(probe, PROBE_HANDLERS, at);
  for (const key of PROBE_COUNTS) {
    const n = probe[key];
    if (typeof n === 'number' && n < 0) causes.push(...invalidCauses(`${at}.${key}`, n, ['must be greater than or equal to 0']));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace <= 0) causes.push(...invalidCauses(`${at}.terminationGracePeriodSeconds`, grace, ['must be greater than 0']));
  const success = probe.successThreshold;
  if (kind !== 'readinessProbe' && typeof success === 'number' && success !== 0 && success !== 1) causes.push(...invalidCauses(`${at}.successThreshold`, success, ['must be 1']));
  if (kind === 'readinessProbe' && isSet(grace)) causes.push(...invalidCauses(`${at}.terminationGracePeriodSeconds`, grace, ['must not be set for readinessProbes']));
  return causes;
}

/** validateLifecycle: postStart and preStop are handlers. */
export function lifecycleCauses(lifecycle: unknown, at: string): StatusCause[] {
  if (!isMap(lifecycle)) return [];
  return ['postStart', 'preStop'].flatMap((hook) => (isMap(lifecycle[hook]) ? handlerCauses(lifecycle[hook] as Json, LIFECYCLE_HANDLERS, `${at}.${hook}`) : []));
}
