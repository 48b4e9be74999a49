/**
 * The strategic-merge-patch schema of the built-in kinds, as data: per field, the patch
 * strategy and merge key that the Go types of k8s.io/api v0.32 declare in their struct tags
 * (`patchStrategy:"merge" patchMergeKey:"name"`). A field that is not listed has no tag: maps
 * under it still merge key by key, lists under it are replaced whole (tolerations, taints,
 * Endpoints subsets, a container's args, ...).
 */

export type PatchStrategy = 'merge' | 'retainKeys';

export interface FieldStrategy {
  /** `merge`: lists merge (by mergeKey, or as a set of primitives); `retainKeys`: honours $retainKeys. */
  readonly strategies?: readonly PatchStrategy[];
  /** The key that identifies an element of a merged list of objects. */
  readonly mergeKey?: string;
  /** The schema of the field's value (of each element, for a list). */
  readonly of?: TypeStrategy;
}

/** Field name → what the Go type's tag says. */
export type TypeStrategy = { readonly [field: string]: FieldStrategy };

const merge: readonly PatchStrategy[] = ['merge'];
const mergeRetain: readonly PatchStrategy[] = ['merge', 'retainKeys'];
const byName = (of?: TypeStrategy): FieldStrategy => ({ strategies: merge, mergeKey: 'name', of });
const byType: FieldStrategy = { strategies: merge, mergeKey: 'type' };
const conditions: TypeStrategy = { conditions: byType };

const objectMeta: TypeStrategy = {
  finalizers: { strategies: merge },
  ownerReferences: { strategies: merge, mergeKey: 'uid' },
};

const container: TypeStrategy = {
  ports: { strategies: merge, mergeKey: 'containerPort' },
  env: byName(),
  volumeMounts: { strategies: merge, mergeKey: 'mountPath' },
  volumeDevices: { strategies: merge, mergeKey: 'devicePath' },
};

const podSpec: TypeStrategy = {
  volumes: { strategies: mergeRetain, mergeKey: 'name' },
  initContainers: byName(container),
  containers: byName(container),
  ephemeralContainers: byName(container),
  imagePullSecrets: byName(),
  hostAliases: { strategies: merge, mergeKey: 'ip' },
  topologySpreadConstraints: { strategies: merge, mergeKey: 'topologyKey' },
  schedulingGates: byName(),
  resourceClaims: { strategies: mergeRetain, mergeKey: 'name' },
};

const podStatus: TypeStrategy = {
  conditions: byType,
  podIPs: { strategies: merge, mergeKey: 'ip' },
  hostIPs: { strategies: merge, mergeKey: 'ip' },
  resourceClaimStatuses: { strategies: mergeRetain, mergeKey: 'name' },
};

const podTemplate: TypeStrategy = { metadata: { of: objectMeta }, spec: { of: podSpec } };

/** A kind's top level: metadata always, then its own spec and status. */
function kind(spec?: TypeStrategy, status?: TypeStrategy): TypeStrategy {
  return { metadata: { of: objectMeta }, ...(spec ? { spec: { of: spec } } : {}), ...(status ? { status: { of: status } } : {}) };
}

const workload = (extra: TypeStrategy = {}): TypeStrategy => kind({ template: { of: podTemplate }, ...extra }, conditions);

/** Kind → its schema. Kinds missing here (custom kinds) are patched as JSON merge patches. */
export const patchStrategies: Readonly<Record<string, TypeStrategy>> = {
  Pod: kind(podSpec, podStatus),
  Deployment: workload({ strategy: { strategies: ['retainKeys'] } }),
  ReplicaSet: workload(),
  DaemonSet: workload(),
  ControllerRevision: kind(),
  Service: kind({ ports: { strategies: merge, mergeKey: 'port' } }, conditions),
  Endpoints: kind(),
  Node: kind({ podCIDRs: { strategies: merge } }, { conditions: byType, addresses: byType }),
  Namespace: kind(undefined, conditions),
  ConfigMap: kind(),
  Secret: kind(),
  Event: kind(),
  Lease: kind(),
  RuntimeClass: kind(),
};
