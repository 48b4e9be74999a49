import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { restrictNodeEventWrites } from './node-event-restriction.js';
import { restrictNodeWrites } from './node-restriction.js';
import { checkObjectSize, nestingCauses } from './object-limits.js';
import type { AdmissionContext, ResourceDef } from '../kinds/registry.js';

/**
 * Admission: normalizing, defaulting, NodeRestriction (403), validation with the nesting limit
 * of what edges take (one 422 Invalid with details.causes), then their size limit (413).
 */
export function admit(def: ResourceDef, obj: KubeObject, ctx: AdmissionContext): void {
  def.strategy?.normalize?.(obj);
  if (ctx.operation === 'create') def.strategy?.defaultOnCreate?.(obj, ctx);
  else def.strategy?.defaultOnUpdate?.(obj, ctx);
  restrictNodeWrites(def, obj, ctx);
  restrictNodeEventWrites(def, obj, ctx);
  const causes = [...nestingCauses(obj), ...validateMeta(def, obj), ...(def.strategy?.validate?.(obj, ctx) ?? [])];
  if (causes.length > 0) throw invalid(def, obj.metadata.name ?? '', causes);
  checkObjectSize(def, obj);
}

export function invalid(def: Pick<ResourceDef, 'kind' | 'group'>, name: string, causes: StatusCause[]): KedgeError {
  // field.ErrorList.ToAggregate: the message names each distinct error once; the causes keep them all.
  const parts = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)))];
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new KedgeError('Invalid', `${def.kind} "${name}" is invalid: ${summary}`, {
    details: { name, group: def.group, kind: def.kind, causes },
  });
}

const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Empty list when `value` is a DNS-1123 label (max 63 characters). */
export function checkLabel(field: string, value: string): StatusCause[] {
  if (value.length <= 63 && label.test(value)) return [];
  return [invalidValue(field, value, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")];
}

/** Empty list when `value` is a DNS-1123 subdomain (max 253 characters). */
export function checkSubdomain(field: string, value: string): StatusCause[] {
  if (value.length <= 253 && subdomain.test(value)) return [];
  return [invalidValue(field, value, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")];
}

export function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

export function invalidValue(field: string, value: unknown, why: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${why}`, field };
}

export function unsupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${list}`, field };
}

const qualifiedName = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function validateMeta(def: ResourceDef, obj: KubeObject): StatusCause[] {
  const meta = obj.metadata;
  const causes: StatusCause[] = [];
  if (!meta.name) causes.push(required('metadata.name'));
  else causes.push(...nameCauses(def, meta.name));
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    if (!validLabelKey(key)) causes.push(invalidValue('metadata.labels', key, 'name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\''));
    if (typeof value !== 'string' || value.length > 63 || !labelValue.test(value)) causes.push(invalidValue('metadata.labels', value, 'a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\''));
  }
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    if (typeof value !== 'string') causes.push(invalidValue(`metadata.annotations[${key}]`, value, 'must be a string'));
  }
  return causes;
}

function nameCauses(def: ResourceDef, name: string): StatusCause[] {
  if (def.strategy?.nameIsPathSegment) return checkPathSegment('metadata.name', name);
  return def.strategy?.nameIsLabel ? checkLabel('metadata.name', name) : checkSubdomain('metadata.name', name);
}

/** kube's ValidatePathSegmentName (RBAC names such as "system:basic-user"). */
export function checkPathSegment(field: string, value: string): StatusCause[] {
  if (value === '.' || value === '..') return [invalidValue(field, value, `may not be '${value}'`)];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => invalidValue(field, value, `may not contain '${c}'`));
}

function validLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !subdomain.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && qualifiedName.test(name);
}
