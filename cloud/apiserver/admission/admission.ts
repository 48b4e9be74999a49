import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import { validateObjectMeta } from './meta-validation.js';
import { dns1123LabelErrors, dns1123SubdomainErrors, generateNamePrefixErrors, invalidCauses } from './name-formats.js';
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

/** Empty list when `value` is a DNS-1123 label (max 63 characters). */
export function checkLabel(field: string, value: string): StatusCause[] {
  return invalidCauses(field, value, dns1123LabelErrors(value));
}

/** Empty list when `value` is a DNS-1123 subdomain (max 253 characters). */
export function checkSubdomain(field: string, value: string): StatusCause[] {
  return invalidCauses(field, value, dns1123SubdomainErrors(value));
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

function validateMeta(def: ResourceDef, obj: KubeObject): StatusCause[] {
  return validateObjectMeta(obj.metadata, (value, prefix) => nameErrors(def, value, prefix));
}

function nameErrors(def: ResourceDef, name: string, prefix: boolean): string[] {
  if (def.strategy?.nameIsPathSegment) return pathSegmentErrors(name, prefix);
  const rule = def.strategy?.nameIsLabel ? dns1123LabelErrors : dns1123SubdomainErrors;
  return prefix ? generateNamePrefixErrors(name, rule) : rule(name);
}

/** kube's ValidatePathSegmentName (RBAC names such as "system:basic-user"). */
export function checkPathSegment(field: string, value: string): StatusCause[] {
  return invalidCauses(field, value, pathSegmentErrors(value, false));
}

function pathSegmentErrors(value: string, prefix: boolean): string[] {
  if (!prefix && (value === '.' || value === '..')) return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}
