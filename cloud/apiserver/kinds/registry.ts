import type { KubeObject } from '../../../shared/types.js';
import type { StatusCause } from '../../../shared/errors.js';
import type { ColumnDefinition } from '../rest/tables.js';
import type { UserInfo } from '../auth/authn.js';
import type { ApiResource } from '../../client/api-resource.js';

/** What an admission step may look at: the clock's "now", the old object on updates, and who asks. */
export interface AdmissionContext {
  now: number;
  operation: 'create' | 'update';
  old?: KubeObject;
  /** The requester (NodeRestriction looks at it); absent for the server's own derived writes (scale). */
  user?: UserInfo;
  /** 'status' for a write of the status subresource, whose spec the request cannot change. */
  subresource?: 'status';
}

/** Per-kind behaviour hooks: defaulting, validation, printing, field selectors. */
export interface ResourceStrategy {
  /** Fills in defaults on create (mutates the object it is given). */
  defaultOnCreate?(obj: KubeObject, ctx: AdmissionContext): void;
  /** Fills in on update what kube's admission plugins add or carry over then (mutates the object; `ctx.old` is the stored one). */
  defaultOnUpdate?(obj: KubeObject, ctx: AdmissionContext): void;
  /** Returns the problems found; an empty list means valid. */
  validate?(obj: KubeObject, ctx: AdmissionContext): StatusCause[];
  /** Field values this kind can be selected by, beyond metadata.name/namespace. */
  fields?(obj: KubeObject): Record<string, string>;
  /** Whether the object's name must be a DNS-1123 label (namespaces) rather than a subdomain. */
  nameIsLabel?: boolean;
  /** Whether any path segment name will do (RBAC's "system:basic-user"), rather than a DNS-1123 subdomain. */
  nameIsPathSegment?: boolean;
  /**
   * Runs before admission on create and update, for kinds whose server-assigned values must
   * be unique across the kind (a Service's clusterIP and nodePorts): it may read the kind's
   * other objects. Calls for one kind run one at a time in an apiserver, so a value picked
   * as free stays unique. It may fill the defaults it depends on (mutates the object).
   */
  prepare?(obj: KubeObject, ctx: PrepareContext): Promise<void>;
  /**
   * With `prepare`: the object as far as its unique values go, recorded for the other
   * apiservers on the store before it is written (rest/reservations.ts); undefined when it
   * holds none, or the same as `old`.
   */
  reservation?(obj: KubeObject, old?: KubeObject): KubeObject | undefined;
  /**
   * What kube's decoding does on every write (create and update), before defaulting: turns the
   * written form into the stored form (a Secret's stringData into data) and throws 400 for
   * values that would not decode (bad base64). Mutates the object.
   */
  normalize?(obj: KubeObject): void;
  /**
   * Admission that reads other kinds, on create only, before defaulting and validation (kube's
   * admission plugins with listers: RuntimeClass for pods). Mutates the object or throws to reject.
   */
  admitCreate?(obj: KubeObject, ctx: LookupContext): Promise<void>;
}

/** Reads one stored object of any kind; undefined when there is none. */
export type ObjectLookup = (def: ResourceDef, namespace: string | undefined, name: string) => Promise<KubeObject | undefined>;

/** Lists the stored objects of a kind (in one namespace, or all). */
export type ObjectListing = (def: ResourceDef, namespace?: string) => Promise<KubeObject[]>;

export interface LookupContext extends AdmissionContext {
  lookup: ObjectLookup;
  list: ObjectListing;
}

export interface PrepareContext extends AdmissionContext {
  /** The stored objects of the same kind in every namespace, except the one with this object's name. */
  others(): Promise<KubeObject[]>;
}

export interface Printer {
  columns: ColumnDefinition[];
  cells(obj: KubeObject, now: number): unknown[];
}

export interface SubresourceDef {
  name: string;
  /** Kind of the subresource body; defaults to the parent kind. */
  kind?: string;
  group?: string;
  version?: string;
  verbs: string[];
  /** A connection (kube's "connect" operations: exec, attach, portforward), not an object: left out of the OpenAPI document. */
  connect?: boolean;
}

/** One row of the resource table: everything the generic REST machinery needs to serve a kind. */
export interface ResourceDef extends ApiResource {
  singular: string;
  shortNames: string[];
  categories: string[];
  subresources: SubresourceDef[];
  printer?: Printer;
  strategy?: ResourceStrategy;
  /** The verbs discovery lists (default allVerbs): a read-only kind's get and list. */
  verbs?: string[];
  /** A deprecated kind: kube's warning sent with every answer about it ("v1 ComponentStatus is deprecated in v1.19+"). */
  deprecation?: string;
}

export const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** Where the store keeps an object: /registry/[group/]resource/[namespace/]name. */
export function storeKey(def: ResourceDef, namespace: string | undefined, name: string): string {
  return `${storePrefix(def, namespace)}${name}`;
}

/** The key prefix of a collection: all namespaces when `namespace` is undefined. */
export function storePrefix(def: ResourceDef, namespace: string | undefined): string {
  const base = def.group ? `/registry/${def.group}/${def.resource}/` : `/registry/${def.resource}/`;
  return def.namespaced && namespace !== undefined ? `${base}${namespace}/` : base;
}

/** The key prefix of each kind: the stores keep one watch window per resource, as kube's watch caches do. */
export function resourcePrefixes(defs: readonly ResourceDef[]): string[] {
  return defs.map((def) => storePrefix(def, undefined));
}

export function hasSubresource(def: ResourceDef, name: string): boolean {
  return def.subresources.some((s) => s.name === name);
}

/** Lookup over the resource table. */
export class ResourceRegistry {
  constructor(readonly defs: readonly ResourceDef[]) {}

  find(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.defs.find((d) => d.group === group && d.version === version && d.resource === resource);
  }

  /** Group names other than core, in table order. */
  groups(): string[] {
    return [...new Set(this.defs.map((d) => d.group).filter((g) => g !== ''))];
  }

  versionsOf(group: string): string[] {
    return [...new Set(this.defs.filter((d) => d.group === group).map((d) => d.version))];
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.defs.filter((d) => d.group === group && d.version === version);
  }
}
