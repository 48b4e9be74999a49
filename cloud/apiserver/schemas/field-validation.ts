import { KedgeError } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { invalid, unsupported } from '../admission/admission.js';
import type { ResourceDef, ResourceRegistry } from '../kinds/registry.js';
import { mediaType, type ApiRequest } from '../request.js';
import { scanKeys, type KeyScan } from './duplicate-fields.js';
import { checkFields, type FieldReport } from './field-check.js';
import type { GroupVersionKind } from './schema-generator.js';
import { schemaSetFor, type SchemaSet } from './schema-set.js';

/**
 * kube-apiserver's `fieldValidation` on create, update and patch: unknown and duplicate
 * fields are an error (Strict: 400 "strict decoding error: …"), one warning each (Warn, the
 * default without the parameter) or nothing (Ignore); unknown fields are dropped from what is
 * stored in every mode. A value of the wrong JSON type is a 400 decode error, an unsupported
 * enum value a 422, in every mode.
 */

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
const MODES: FieldValidation[] = ['Ignore', 'Warn', 'Strict'];

/** The schemas of a kind, built on first use. */
export interface SchemaSource {
  schemaOf(def: ResourceDef): { set: SchemaSet; name: string } | undefined;
}

/** The schemas of every kind of the registry (and of its subresources' kinds), loaded on first use. */
export function registrySchemas(registry: ResourceRegistry): SchemaSource & { set(): SchemaSet } {
  let set: SchemaSet | undefined;
  const load = (): SchemaSet => (set ??= schemaSetFor(servedKinds(registry.defs)));
  return {
    set: load,
    schemaOf(def) {
      const name = load().nameOf(def);
      return name ? { set: load(), name } : undefined;
    },
  };
}

/** Every kind the table serves: each row's, and the kinds its subresources speak (Scale, Binding, Eviction). */
export function servedKinds(defs: readonly ResourceDef[]): GroupVersionKind[] {
  return defs.flatMap((d) => [
    { group: d.group, version: d.version, kind: d.kind },
    ...d.subresources.filter((s) => s.kind && !s.connect).map((s) => ({ group: s.group ?? d.group, version: s.version ?? d.version, kind: s.kind! })),
  ]);
}

export function fieldValidationOf(req: ApiRequest, options: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): FieldValidation {
  const value = req.query.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if ((MODES as string[]).includes(value)) return value as FieldValidation;
  const cause = unsupported('fieldValidation', value, MODES);
  throw new KedgeError('Invalid', `${options}.meta.k8s.io "" is invalid: fieldValidation: ${cause.message}`, { details: { name: '', group: 'meta.k8s.io', kind: options, causes: [cause] } });
}

function jsonText(req: ApiRequest): string | undefined {
  const type = mediaType(req.headers['content-type']);
  const json = type === '' || type === 'application/json' || type.endsWith('+json');
  return json && req.body ? req.body.toString('utf8') : undefined;
}

/** The body's duplicate fields, and with `positions` the offsets of its keys (JSON bodies only). */
function keysOf(req: ApiRequest, positions = false): KeyScan {
  const text = jsonText(req);
  return text === undefined ? { duplicates: [], firstAt: new Map() } : scanKeys(text, { positions });
}

const duplicateText = (path: string): string => `duplicate field "${path}"`;
const unknownText = (path: string): string => `unknown field "${path}"`;

/** The problems as the mode says: thrown (Strict) or returned as warnings (Warn). Ignore looks for none. */
function judged(mode: Exclude<FieldValidation, 'Ignore'>, problems: string[], prefix: string): string[] {
  if (problems.length === 0) return [];
  if (mode === 'Warn') return problems;
  throw new KedgeError('BadRequest', `${prefix}strict decoding error: ${problems.join(', ')}`);
}

function decodePrefix(def: ResourceDef): string {
  return `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: `;
}

function failOnValues(def: ResourceDef, obj: KubeObject, report: FieldReport, prefix: string): void {
  if (report.typeError) throw new KedgeError('BadRequest', `${prefix}${report.typeError}`);
  if (report.invalid.length) throw invalid(def, obj.metadata.name ?? '', report.invalid);
}

/** Create and update: the body as decoded. Returns the warnings to send; mutates `obj` (unknown fields dropped). */
export function judgeBody(source: SchemaSource | undefined, def: ResourceDef, req: ApiRequest, obj: KubeObject, options: 'CreateOptions' | 'UpdateOptions'): string[] {
  const mode = fieldValidationOf(req, options);
  const schema = source?.schemaOf(def);
  if (!schema) return [];
  const report = checkFields(schema.set, schema.name, obj as unknown as Record<string, unknown>);
  failOnValues(def, obj, report, decodePrefix(def));
  if (mode === 'Ignore') return [];
  // In the order the decoder meets them; a field both unknown and repeated is reported as unknown.
  const keys = keysOf(req, report.unknown.length > 0);
  const under = (path: string): boolean => report.unknown.some((u) => path === u || path.startsWith(`${u}.`) || path.startsWith(`${u}[`));
  const problems = [
    ...keys.duplicates.filter((d) => !under(d.path)).map((d) => ({ at: d.at, text: duplicateText(d.path) })),
    ...report.unknown.map((p) => ({ at: keys.firstAt.get(p) ?? Infinity, text: unknownText(p) })),
  ].sort((a, b) => a.at - b.at).map((p) => p.text);
  return judged(mode, problems, decodePrefix(def));
}

/** Patch: the patch body's duplicate fields, then the patched object's unknown ones (in key order, as kube re-encodes it). */
export function judgePatched(source: SchemaSource | undefined, def: ResourceDef, req: ApiRequest, patched: KubeObject): string[] {
  const mode = fieldValidationOf(req, 'PatchOptions');
  const schema = source?.schemaOf(def);
  if (!schema) return [];
  const report = checkFields(schema.set, schema.name, patched as unknown as Record<string, unknown>, { sorted: true });
  failOnValues(def, patched, report, '');
  if (mode === 'Ignore') return [];
  return judged(mode, [...keysOf(req).duplicates.map((d) => duplicateText(d.path)), ...report.unknown.map(unknownText)], '');
}
