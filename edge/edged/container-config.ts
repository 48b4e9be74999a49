import type { Container, EnvVar, Pod } from '../../shared/types.js';
import type { ContainerConfig } from '../runtime/runtime.js';

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

/** Why a `valueFrom` the edge cannot resolve leaves its variable unset; undefined when kube too would leave it unset silently. */
function unresolvable(e: EnvVar): string | undefined {
  const from = e.valueFrom ?? {};
  const ref = from.configMapKeyRef ?? from.secretKeyRef;
  if (ref?.optional) return undefined;
  if (ref) return `${e.name}: the edge holds no ${from.configMapKeyRef ? 'ConfigMap' : 'Secret'}s (${ref.name ?? ''}/${ref.key})`;
  if (from.fieldRef) return `${e.name}: fieldRef ${from.fieldRef.fieldPath} is not supported`;
  return `${e.name}: ${from.resourceFieldRef ? 'resourceFieldRef' : 'this valueFrom'} is not supported`;
}

/**
 * The container's environment as the kubelet builds it: in order, each `value` expanded
 * against the variables before it, each `fieldRef` read from the pod. What the edge cannot
 * resolve (ConfigMaps, Secrets, resources) is left unset, and said so in `unset`.
 */
export function containerEnv(pod: Pod, container: Container, where: PodPlacement): { env: Record<string, string>; unset: string[] } {
  const env = new Map<string, string>();
  const unset: string[] = [];
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref?.optional) unset.push(`envFrom ${from.configMapRef ? 'ConfigMap' : 'Secret'} ${ref?.name ?? ''}: the edge holds no ConfigMaps or Secrets`);
  }
  for (const e of container.env ?? []) {
    const value = envValue(e, pod, where, (name) => env.get(name));
    const why = value === undefined ? unresolvable(e) : undefined;
    if (value !== undefined) env.set(e.name, value);
    else if (why !== undefined) unset.push(why);
  }
  return { env: Object.fromEntries(env), unset };
}

/** One variable's value (a plain one may refer to `earlier` ones); undefined when the edge cannot resolve it. */
function envValue(e: EnvVar, pod: Pod, where: PodPlacement, earlier: (name: string) => string | undefined): string | undefined {
  if (e.value) return expandVars(e.value, earlier);
  if (e.valueFrom?.fieldRef) return fieldRefValue(pod, e.valueFrom.fieldRef.fieldPath, where);
  return e.valueFrom ? undefined : '';
}

/** What the runtime needs to create one container of the pod: its env resolved, `$(VAR)` expanded in command and args. */
export function containerConfig(pod: Pod, container: Container, attempt: number, where: PodPlacement): BuiltContainerConfig {
  const { env, unset } = containerEnv(pod, container, where);
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
