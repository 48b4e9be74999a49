import type { ConfigMap, Secret } from '../config-types.js';
import type { Endpoints, Service } from '../service-types.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../storage-types.js';
import type { Node, Pod } from '../types.js';

/**
 * The kinds the cloud syncs to a node: its pods, the ConfigMaps, Secrets and claims they
 * reference, and the volumes those claims are bound to [SYNC-2][SYNC-18]; the Services and
 * Endpoints its kube-proxy routes, and its own Node (its podCIDR) [SYNC-19]. An `apply`
 * carries one of these, of the kind its ref names.
 */
export const SYNCED_KINDS = ['Pod', 'ConfigMap', 'Secret', 'PersistentVolumeClaim', 'PersistentVolume', 'Service', 'Endpoints', 'Node'] as const;
export type SyncedKind = (typeof SYNCED_KINDS)[number];
export type SyncedObject = Pod | ConfigMap | Secret | PersistentVolumeClaim | PersistentVolume | Service | Endpoints | Node;

export const isSyncedKind = (kind: unknown): kind is SyncedKind => typeof kind === 'string' && (SYNCED_KINDS as readonly string[]).includes(kind);

type Fields = Record<string, unknown>;
const isObject = (x: unknown): x is Fields => typeof x === 'object' && x !== null && !Array.isArray(x);
const isStringMap = (x: unknown): boolean => x === undefined || (isObject(x) && Object.values(x).every((v) => typeof v === 'string'));
const isOptional = (x: unknown, type: 'boolean' | 'string'): boolean => x === undefined || typeof x === type;
const isOptionalObject = (x: unknown): boolean => x === undefined || isObject(x);
const isOptionalArray = (x: unknown): boolean => x === undefined || Array.isArray(x);
/** A volume source the edge mounts (hostPath, local): absent, or an object with a string path. */
const isPathSource = (x: unknown): boolean => x === undefined || (isObject(x) && typeof x.path === 'string');
const specOf = (body: Fields): Fields => (isObject(body.spec) ? body.spec : {});

/** What each kind's body must look like, checked minimally: enough that the edge can use it as such. */
const kindProblems: Record<SyncedKind, (body: Fields) => string | undefined> = {
  Pod: (body) => (isObject(body.spec) ? undefined : 'body.spec must be an object'),
  ConfigMap: (body) =>
    (isStringMap(body.data) ? undefined : 'body.data must map keys to strings') ??
    (isStringMap(body.binaryData) ? undefined : 'body.binaryData must map keys to strings') ??
    (isOptional(body.immutable, 'boolean') ? undefined : 'body.immutable must be a boolean'),
  Secret: (body) =>
    (isStringMap(body.data) ? undefined : 'body.data must map keys to strings') ??
    (isOptional(body.type, 'string') ? undefined : 'body.type must be a string') ??
    (isOptional(body.immutable, 'boolean') ? undefined : 'body.immutable must be a boolean'),
  PersistentVolumeClaim: (body) =>
    (isOptionalObject(body.spec) ? undefined : 'body.spec must be an object') ??
    (isOptional(specOf(body).volumeName, 'string') ? undefined : 'body.spec.volumeName must be a string'),
  PersistentVolume: (body) =>
    (isOptionalObject(body.spec) ? undefined : 'body.spec must be an object') ??
    (isPathSource(specOf(body).hostPath) ? undefined : 'body.spec.hostPath.path must be a string') ??
    (isPathSource(specOf(body).local) ? undefined : 'body.spec.local.path must be a string'),
  Service: (body) => (isObject(body.spec) ? undefined : 'body.spec must be an object') ?? (isOptionalArray(specOf(body).ports) ? undefined : 'body.spec.ports must be an array'),
  Endpoints: (body) => (isOptionalArray(body.subsets) ? undefined : 'body.subsets must be an array'),
  Node: (body) => (isOptionalObject(body.spec) ? undefined : 'body.spec must be an object') ?? (isOptional(specOf(body).podCIDR, 'string') ? undefined : 'body.spec.podCIDR must be a string'),
};

/** [SYNC-1] Why the body of an `apply` is not the object its ref names, if it is not. */
export function syncedBodyProblem(ref: { kind: string; name: string; uid: string; namespace?: string }, body: unknown): string | undefined {
  if (!isSyncedKind(ref.kind)) return `ref.kind must be one of ${SYNCED_KINDS.join(', ')}`;
  if (!isObject(body) || !isObject(body.metadata)) return 'body must be an object with metadata';
  if (body.kind !== undefined && body.kind !== ref.kind) return 'body.kind must equal ref.kind';
  if (body.metadata.uid !== ref.uid) return 'body.metadata.uid must equal ref.uid';
  if (body.metadata.name !== ref.name) return 'body.metadata.name must equal ref.name';
  if (body.metadata.namespace !== ref.namespace) return 'body.metadata.namespace must equal ref.namespace';
  return kindProblems[ref.kind](body);
}
