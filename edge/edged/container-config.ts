import type { Container, EnvVar, Pod } from '../../shared/types.js';
import type { ContainerConfig } from '../runtime/runtime.js';
import type { ResourceFieldSelector } from '../../shared/volume-types.js';
import { EnvError, envFromEntries, keyRefValue, NO_OBJECTS, SKIP, type EnvSources } from './env-sources.js';
import { resourceFieldValue } from './resource-field.js';

export { EnvError, type EnvSources } from './env-sources.js';

/** Where a pod runs: what the downward API's `status.*` fields read. */
export interface PodPlacement {
  /** The pod sandbox's IP. */
  podIP: string;
  hostIP: string;
}

export interface BuiltContainerConfig {
  config: ContainerConfig;
  /** Env the edge could not provide and left unset, one line each (edged logs them). */
  unset: string[];
}

/**
 * Kubernetes' `$(VAR)` expansion: a reference to a known variable becomes its value, an
 * unknown one stays as written, `$$` is a literal `$`, and any other `$` is kept.
 */
export function expandVars(text: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const next = text[i + 1];
    if (text[i] !== '$' || next === undefined) {
      out += text[i];
    } else if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(' && text.indexOf(')', i + 2) !== -1) {
      const close = text.indexOf(')', i + 2);
      const name = text.slice(i + 2, close);
      out += lookup(name) ?? `$(${name})`;
      i = close;
    } else {
      out += '$';
    }
  }
  return out;
}

/** `metadata.labels['key']` → ['metadata.labels', 'key']. */
function subscripted(path: string): [string, string] | undefined {
  const m = /^(metadata\.labels|metadata\.annotations)\['(.*)'\]$/.exec(path);
  return m ? [m[1]!, m[2]!] : undefined;
}

/** The value of a downward API `fieldRef` (the paths kube allows in env); undefined for any other path. */
export function fieldRefValue(pod: Pod, fieldPath: string, where: PodPlacement): string | undefined {
  const { metadata: meta, spec } = pod;
  const [map, key] = subscripted(fieldPath) ?? [];
  if (map !== undefined) return (map === 'metadata.labels' ? meta.labels : meta.annotations)?.[key!] ?? '';
  const fields: Record<string, string> = {
    'metadata.name': meta.name ?? '',
    'metadata.namespace': meta.namespace ?? 'default',
    'metadata.uid': meta.uid ?? '',
    'spec.nodeName': spec.nodeName ?? '',
    // kube's ServiceAccount admission sets "default" on every pod that names none.
    'spec.serviceAccountName': spec.serviceAccountName ?? 'default',
    'status.podIP': where.podIP,
    'status.podIPs': where.podIP,
    'status.hostIP': where.hostIP,
    'status.hostIPs': where.hostIP,
  };
  return Object.hasOwn(fields, fieldPath) ? fields[fieldPath] : undefined;
}

const NO_SERVICES: ReadonlyMap<string, string> = new Map();

/** Why a `fieldRef` the edge cannot resolve leaves its variable unset. */
const unresolvable = (e: EnvVar): string => `${e.name}: fieldRef ${e.valueFrom?.fieldRef?.fieldPath ?? ''} is not supported`;

/**
 * The container's environment as the kubelet builds it (makeEnvironmentVariables): `envFrom`
 * first (each key with its prefix), then `env` in order, which wins; each `value` expanded
 * against the variables before it (and the Service variables), each `valueFrom` read from the
 * pod, its ConfigMaps and Secrets; then each Service variable whose name is still unset. A
 * missing object or key not marked optional throws an EnvError (the container is not created:
 * CreateContainerConfigError); a fieldRef the edge cannot read is left unset, and said so in
 * `unset`.
 */
export function containerEnv(pod: Pod, container: Container, where: PodPlacement, sources: EnvSources = NO_OBJECTS): { env: Record<string, string>; unset: string[] } {
  const namespace = pod.metadata.namespace ?? 'default';
  const env = new Map<string, string>(envFromEntries(container.envFrom ?? [], namespace, sources.objects));
  const services = sources.serviceEnv?.(pod) ?? NO_SERVICES;
  const unset: string[] = [];
  for (const e of container.env ?? []) {
    const value = envValue(e, { pod, namespace, container, where, sources, earlier: (name) => env.get(name) ?? services.get(name) });
    if (value === SKIP) continue;
    if (value !== undefined) env.set(e.name, value);
    else unset.push(unresolvable(e));
  }
  for (const [name, value] of services) if (!env.has(name)) env.set(name, value);
  return { env: Object.fromEntries(env), unset };
}

function resourceValue(field: ResourceFieldSelector, pod: Pod, container: Container, sources: EnvSources): string {
  try {
    return resourceFieldValue(field, pod, container, sources.allocatable);
  } catch (err) {
    throw new EnvError((err as Error).message);
  }
}

interface EnvContext {
  pod: Pod;
  namespace: string;
  container: Container;
  where: PodPlacement;
  sources: EnvSources;
  earlier: (name: string) => string | undefined;
}

/** One variable's value (a plain one may refer to `earlier` ones); SKIP for an optional key that is absent; undefined when the edge cannot resolve it. */
function envValue(e: EnvVar, { pod, namespace, container, where, sources, earlier }: EnvContext): string | typeof SKIP | undefined {
  const from = e.valueFrom;
  if (e.value || !from) return e.value ? expandVars(e.value, earlier) : '';
  if (from.fieldRef) return fieldRefValue(pod, from.fieldRef.fieldPath, where);
  if (from.resourceFieldRef) return resourceValue(from.resourceFieldRef, pod, container, sources);
  if (from.configMapKeyRef) return keyRefValue('ConfigMap', from.configMapKeyRef, namespace, sources.objects);
  if (from.secretKeyRef) return keyRefValue('Secret', from.secretKeyRef, namespace, sources.objects);
  return undefined;
}

/** What the runtime needs to create one container of the pod (throws an EnvError when its env cannot be built): its env resolved, `$(VAR)` expanded in command and args. */
export function containerConfig(pod: Pod, container: Container, attempt: number, where: PodPlacement, sources: EnvSources = NO_OBJECTS): BuiltContainerConfig {
  const { env, unset } = containerEnv(pod, container, where, sources);
  const known = new Map(Object.entries(env));
  const expand = (words: string[]): string[] => words.map((w) => expandVars(w, (name) => known.get(name)));
  const config: ContainerConfig = { name: container.name, attempt, env, annotations: { ...(pod.metadata.annotations ?? {}) } };
  if (container.image !== undefined) config.image = container.image;
  if (container.command) config.command = expand(container.command);
  if (container.args) config.args = expand(container.args);
  if (container.workingDir) config.workingDir = container.workingDir;
  if (container.stdin === true) config.stdin = true;
  if (container.tty === true) config.tty = true;
  return { config, unset };
}
