import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { EnvFromSource, KeySelector, Pod } from '../../shared/types.js';
import type { PodObjects } from '../volumes/pod-objects.js';
import type { Allocatable } from './resource-field.js';

/** Where a container's env comes from besides its pod: the ConfigMaps and Secrets the edge holds, the node's allocatable, the Services. */
export interface EnvSources {
  objects: PodObjects;
  allocatable?: Allocatable;
  /** The pod's Service variables (kubelet's service env), read when a container is created; none: no Service variables. */
  serviceEnv?: (pod: Pod) => ReadonlyMap<string, string>;
}

export const NO_OBJECTS: EnvSources = { objects: { configMap: () => undefined, secret: () => undefined } };

/** A variable that cannot be built: the container waits in CreateContainerConfigError with this message. */
export class EnvError extends Error {}

/** An optional reference whose object or key is absent: the variable is not set. */
export const SKIP = Symbol('skip');

type Kind = 'ConfigMap' | 'Secret';

const decode = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');

/** The object's keys with their values as env (a Secret's decoded); kube reads a ConfigMap's `data` only. */
function entriesOf(kind: Kind, object: ConfigMap | Secret): [string, string][] {
  const data = Object.entries(object.data ?? {});
  return kind === 'Secret' ? data.map(([k, v]) => [k, decode(v)]) : data;
}

/** The object, or the kubelet's error for a missing one; undefined when it is missing and optional. */
function objectOf(kind: Kind, name: string, namespace: string, optional: boolean | undefined, objects: PodObjects): ConfigMap | Secret | undefined {
  const object = kind === 'ConfigMap' ? objects.configMap(namespace, name) : objects.secret(namespace, name);
  if (!object && !optional) throw new EnvError(`${kind.toLowerCase()} "${name}" not found`);
  return object;
}

/** Every key of each `envFrom` source, with its prefix, in order (a later source wins). */
export function envFromEntries(sources: EnvFromSource[], namespace: string, objects: PodObjects): [string, string][] {
  const out: [string, string][] = [];
  for (const from of sources) {
    const kind: Kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref) continue;
    const object = objectOf(kind, ref.name ?? '', namespace, ref.optional, objects);
    if (object) out.push(...entriesOf(kind, object).map(([k, v]): [string, string] => [`${from.prefix ?? ''}${k}`, v]));
  }
  return out;
}

/** A `configMapKeyRef` or `secretKeyRef`'s value; SKIP when optional and absent. */
export function keyRefValue(kind: Kind, ref: KeySelector, namespace: string, objects: PodObjects): string | typeof SKIP {
  const name = ref.name ?? '';
  const object = objectOf(kind, name, namespace, ref.optional, objects);
  const value = object?.data?.[ref.key];
  if (value !== undefined) return kind === 'Secret' ? decode(value) : value;
  if (ref.optional) return SKIP;
  throw new EnvError(`couldn't find key ${ref.key} in ${kind} ${namespace}/${name}`);
}
