import type { ModelField, ModelReader } from './model-reader.js';
import { coreTypes, enumFields, metaTypes, quantityFields } from './schema-tables.js';

/**
 * OpenAPI v3 component schemas for built-in kinds, generated from client-node's models: every
 * model a kind reaches, named as kube names its definitions (io.k8s.api.core.v1.PodSpec,
 * io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta), with field types and formats, the
 * descriptions, `required`, enums, int-or-string, quantities, maps, lists, and each kind's
 * `x-kubernetes-group-version-kind`.
 */

export type Schema = Record<string, unknown>;

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GeneratedSchemas {
  schemas: Record<string, Schema>;
  /** "group/version/Kind" → the name of its schema in `schemas`. */
  kinds: Record<string, string>;
}

export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

export const gvkKey = (gvk: GroupVersionKind): string => `${gvk.group}/${gvk.version}/${gvk.kind}`;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** client-node's class for a kind: V1Pod, V1beta1NodeMetrics; the core Event is CoreV1Event. */
export function modelClassOf(gvk: GroupVersionKind): string {
  const version = gvk.version[0]!.toUpperCase() + gvk.version.slice(1);
  if (gvk.group === '' && gvk.kind === 'Event') return `Core${version}Event`;
  return `${version}${gvk.kind}`;
}

/** "V1PodSpec" → { version: "v1", type: "PodSpec" }; "CoreV1Event" → { version: "v1", type: "Event" }. */
function splitClass(className: string): { version: string; type: string } {
  const m = /^(?:[A-Z][a-z]+)?(V\d+(?:(?:alpha|beta)\d+)?)([A-Z].*)$/.exec(className);
  return m ? { version: m[1]!.toLowerCase(), type: m[2]! } : { version: 'v1', type: className };
}

/** The package word of a group in kube's definition names: core, apps, coordination, node, storage, rbac. */
function packageOf(group: string): string {
  return group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0]!;
}

/**
 * The schema name kube uses for a kind: io.k8s.api.<package>.<version>.<Kind> for the built-in
 * groups (core, apps, coordination.k8s.io, …; the group's first word, as Go packages are named:
 * rbac.authorization.k8s.io → io.k8s.api.rbac.v1), the reversed domain for others
 * (sync.kedge.io → io.kedge.sync.v1.NodeSync), as CRDs are named.
 */
export function schemaName(gvk: GroupVersionKind): string {
  const g = gvk.group;
  if (g === '' || !g.includes('.') || g.endsWith('.k8s.io')) return `io.k8s.api.${packageOf(g)}.${gvk.version}.${gvk.kind}`;
  return `${g.split('.').reverse().join('.')}.${gvk.version}.${gvk.kind}`;
}

const intOrString: Schema = {
  description: 'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
  type: 'string',
  format: 'int-or-string',
  'x-kubernetes-int-or-string': true,
};
const quantity: Schema = {
  description: 'Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors.\n\nThe serialization format is:\n\n```\n<quantity>        ::= <signedNumber><suffix>\n```\n\nA number (an integer or a decimal) or a string in this format.',
  type: 'string',
  'x-kubernetes-int-or-string': true,
};

export function generateSchemas(read: ModelReader, roots: readonly GroupVersionKind[]): GeneratedSchemas {
  const schemas: Record<string, Schema> = { [INT_OR_STRING]: intOrString, [QUANTITY]: quantity };
  const names = new Map<string, string>();
  /** The package a class is named in: its kind's group, or that of the first kind that reaches it. */
  const packages = new Map<string, string>();
  const kinds: Record<string, string> = {};
  const queue: string[] = [];

  const nameOf = (className: string, pkg: string): string => {
    let name = names.get(className);
    if (name) return name;
    const { version, type } = splitClass(className);
    const prefix = metaTypes.has(className) ? 'io.k8s.apimachinery.pkg.apis.meta' : `io.k8s.api.${coreTypes.has(className) ? 'core' : pkg}`;
    name = `${prefix}.${version}.${type}`;
    names.set(className, name);
    packages.set(className, pkg);
    queue.push(className);
    return name;
  };

  const typeSchema = (type: string, format: string, pkg: string, isQuantity: boolean): Schema => {
    const array = /^Array<(.+)>$/.exec(type);
    if (array) return { type: 'array', items: typeSchema(array[1]!, '', pkg, isQuantity) };
    const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
    if (map) return { type: 'object', additionalProperties: typeSchema(map[1]!, '', pkg, isQuantity) };
    if (isQuantity) return ref(QUANTITY);
    switch (type) {
      case 'string':
        return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
      case 'number':
        return format === 'double' ? { type: 'number', format: 'double' } : { type: 'integer', format: format || 'int64' };
      case 'boolean':
        return { type: 'boolean' };
      case 'Date':
        return { type: 'string', format: 'date-time' };
      case 'IntOrString':
        return ref(INT_OR_STRING);
      case 'any':
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      default:
        return read(type) ? ref(nameOf(type, pkg)) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    }
  };

  const propertyOf = (className: string, field: ModelField, pkg: string): Schema => {
    const schema = typeSchema(field.type, field.format, pkg, quantityFields[className]?.includes(field.name) ?? false);
    const enumField = enumFields[className]?.[field.name];
    const own: Schema = {};
    if (field.description && field.type !== 'IntOrString') own.description = field.description;
    if (enumField) own.enum = enumField.values;
    if (Object.keys(own).length === 0) return schema;
    return schema.$ref ? { ...own, allOf: [schema] } : { ...schema, ...own };
  };

  const build = (className: string, pkg: string): void => {
    const model = read(className)!;
    const name = names.get(className)!;
    const properties = Object.fromEntries(model.fields.map((f) => [f.name, propertyOf(className, f, pkg)]));
    const schema: Schema = { type: 'object', properties };
    if (model.description) schema.description = model.description;
    const required = model.fields.filter((f) => f.required).map((f) => f.name);
    if (required.length) schema.required = required;
    schemas[name] = { ...schemas[name], ...schema };
  };

  // Every kind is named after its own group first, whichever kind reaches it first.
  roots.forEach((gvk) => {
    const pkg = packageOf(gvk.group);
    const pairs = [[gvk.kind, modelClassOf(gvk)], [`${gvk.kind}List`, `${modelClassOf(gvk)}List`]] as const;
    pairs.filter(([, className]) => read(className)).forEach(([kind, className]) => {
      const name = nameOf(className, pkg);
      kinds[gvkKey({ ...gvk, kind })] = name;
      schemas[name] = { ...schemas[name], 'x-kubernetes-group-version-kind': [{ ...gvk, kind }] };
    });
  });
  while (queue.length) {
    const next = queue.shift()!;
    build(next, packages.get(next)!);
  }
  return { schemas, kinds };
}
