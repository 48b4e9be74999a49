import type { StatusCause } from '../../../shared/errors.js';
import { unsupported } from '../admission/admission.js';
import type { Schema } from './schema-generator.js';
import type { SchemaSet } from './schema-set.js';

/**
 * One object judged against its kind's schema, as kube's decoding and validation see it:
 * the unknown fields (removed from the object: kube drops them on decode whatever the
 * fieldValidation), the first value of a wrong JSON type (kube's json decoder stops there),
 * and the values outside a checked enum (validation causes).
 */
export interface FieldReport {
  /** Paths of unknown fields: spec.containers[0].comand. */
  unknown: string[];
  /** `json: cannot unmarshal …`, the first type mismatch. */
  typeError?: string;
  invalid: StatusCause[];
}

interface Walk {
  set: SchemaSet;
  report: FieldReport;
  /** Visit object keys sorted (an object re-encoded from a map, as after a patch). */
  sorted: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const refName = (s: Schema): string | undefined => (typeof s.$ref === 'string' ? s.$ref.slice(s.$ref.lastIndexOf('/') + 1) : undefined);

interface Resolved {
  schema: Schema;
  name?: string;
}

/** Each schema set's resolutions, worked out once: every write walks the same few hundred schemas. */
const resolutions = new WeakMap<SchemaSet, WeakMap<Schema, Resolved>>();

/** The schema `s` stands for: its $ref (or single allOf $ref) resolved, and that schema's name. */
function resolve(set: SchemaSet, s: Schema): Resolved {
  let known = resolutions.get(set);
  if (!known) resolutions.set(set, (known = new WeakMap()));
  let found = known.get(s);
  if (!found) {
    const inner = Array.isArray(s.allOf) && s.allOf.length === 1 ? (s.allOf[0] as Schema) : s;
    const name = refName(inner);
    found = name ? { schema: set.schemas[name] ?? {}, name } : { schema: inner };
    known.set(s, found);
  }
  return found;
}

export function checkFields(set: SchemaSet, schemaName: string, obj: Record<string, unknown>, opts: { sorted?: boolean } = {}): FieldReport {
  const walk: Walk = { set, report: { unknown: [], invalid: [] }, sorted: opts.sorted ?? false };
  visit(walk, { $ref: `#/components/schemas/${schemaName}` }, obj, '', '', shortName(schemaName));
  return walk.report;
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** The Go type kube would decode into, as its json errors name it. */
function goType(set: SchemaSet, s: Schema): string {
  const { schema, name } = resolve(set, s);
  if (name?.endsWith('.IntOrString')) return 'intstr.IntOrString';
  if (name?.endsWith('.Quantity')) return 'resource.Quantity';
  if (name) return `v1.${shortName(name)}`;
  if (schema.type === 'array') return `[]${goType(set, schema.items as Schema)}`;
  if (schema.type === 'object') return schema.additionalProperties ? `map[string]${goType(set, schema.additionalProperties as Schema)}` : 'map[string]interface {}';
  if (schema.type === 'integer') return schema.format === 'int32' ? 'int32' : 'int64';
  if (schema.type === 'number') return 'float64';
  if (schema.type === 'boolean') return 'bool';
  return 'string';
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' ? `number` : typeof v;
}

/**
 * `path`: the field path with indices (spec.containers[0].image), for unknown fields and
 * causes; `goPath`: without them, as Go's json errors name a field (spec.containers.image);
 * `struct`: the Go struct that holds the field.
 */
function visit(w: Walk, s: Schema, value: unknown, path: string, goPath: string, struct: string): void {
  if (value === null || value === undefined || w.report.typeError) return;
  const { schema, name } = resolve(w.set, s);
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && typeof value !== 'number') mismatchAt(w, s, jsonKind(value), goPath, struct);
    return;
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return;
  switch (schema.type) {
    case 'object':
      if (!isObject(value)) return mismatchAt(w, s, jsonKind(value), goPath, struct);
      if (schema.properties) return visitStruct(w, schema, name, value, path, goPath, name ? shortName(name) : struct);
      if (schema.additionalProperties) for (const [k, v] of Object.entries(value)) visit(w, schema.additionalProperties as Schema, v, `${path}[${k}]`, goPath, struct);
      return;
    case 'array':
      if (!Array.isArray(value)) return mismatchAt(w, s, jsonKind(value), goPath, struct);
      value.forEach((v, i) => visit(w, schema.items as Schema, v, `${path}[${i}]`, goPath, struct));
      return;
    case 'integer':
      if (typeof value !== 'number') return mismatchAt(w, s, jsonKind(value), goPath, struct);
      if (!Number.isInteger(value)) return mismatchAt(w, s, `number ${value}`, goPath, struct);
      return;
    case 'number':
      if (typeof value !== 'number') mismatchAt(w, s, jsonKind(value), goPath, struct);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') mismatchAt(w, s, jsonKind(value), goPath, struct);
      return;
    case 'string':
      if (typeof value !== 'string') mismatchAt(w, s, jsonKind(value), goPath, struct);
      return;
  }
}

function mismatchAt(w: Walk, s: Schema, shown: string, goPath: string, struct: string): void {
  w.report.typeError = `json: cannot unmarshal ${shown} into Go struct field ${struct}.${goPath} of type ${goType(w.set, s)}`;
}

function visitStruct(w: Walk, schema: Schema, name: string | undefined, value: Record<string, unknown>, path: string, goPath: string, struct: string): void {
  const properties = schema.properties as Record<string, Schema>;
  const enums = name ? w.set.checkedEnums[name] : undefined;
  const keys = Object.keys(value);
  if (w.sorted) keys.sort();
  for (const key of keys) {
    const at = path ? `${path}.${key}` : key;
    const property = properties[key];
    if (!property) {
      w.report.unknown.push(at);
      delete value[key];
      continue;
    }
    const field = value[key];
    visit(w, property, field, at, goPath ? `${goPath}.${key}` : key, struct);
    const allowed = property.enum as string[] | undefined;
    if (enums?.includes(key) && allowed && typeof field === 'string' && field !== '' && !allowed.includes(field)) {
      w.report.invalid.push(unsupported(at, field, allowed));
    }
  }
}
