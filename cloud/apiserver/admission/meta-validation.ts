import type { StatusCause } from '../../../shared/errors.js';
import type { ObjectMeta } from '../../../shared/types.js';
import { invalidCauses, labelValueErrors, qualifiedNameErrors, requiredBecause, tooLong } from './name-formats.js';

/**
 * The parts of kube 1.32's ValidateObjectMeta (apimachinery's, and core's finalizer rule) that do
 * not depend on the kind: generateName and name (through the kind's name rule), labels,
 * annotations and finalizers, in kube's order and words.
 */

/** TotalAnnotationSizeLimitB: keys and values together, in bytes. */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** `nameErrors(value, prefix)`: the kind's name rule; `prefix` for a generateName, whose trailing '-' is allowed. */
export type NameRule = (value: string, prefix: boolean) => string[];

export function validateObjectMeta(meta: ObjectMeta, nameErrors: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.generateName) causes.push(...invalidCauses('metadata.generateName', meta.generateName, nameErrors(meta.generateName, true)));
  if (!meta.name) causes.push(requiredBecause('metadata.name', 'name or generateName is required'));
  else causes.push(...invalidCauses('metadata.name', meta.name, nameErrors(meta.name, false)));
  causes.push(...validateLabels(meta.labels, 'metadata.labels'), ...validateAnnotations(meta.annotations, 'metadata.annotations'));
  return [...causes, ...validateFinalizers(meta.finalizers)];
}

/** ValidateLabels: each key a qualified name, each value a label value (nodeSelector too). */
export function validateLabels(labels: unknown, field: string): StatusCause[] {
  if (!labels || typeof labels !== 'object') return [];
  return Object.entries(labels).flatMap(([key, value]) => [
    ...invalidCauses(field, key, qualifiedNameErrors(key)),
    ...(typeof value === 'string' ? invalidCauses(field, value, labelValueErrors(value)) : invalidCauses(field, value, ['must be a string'])),
  ]);
}

/** ValidateAnnotations: keys are qualified names whatever their case; keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: unknown, field: string): StatusCause[] {
  if (!annotations || typeof annotations !== 'object') return [];
  const causes: StatusCause[] = [];
  let bytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    causes.push(...invalidCauses(field, key, qualifiedNameErrors(key.toLowerCase())));
    if (typeof value !== 'string') causes.push(...invalidCauses(`${field}[${key}]`, value, ['must be a string']));
    else bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  return bytes > ANNOTATIONS_MAX_BYTES ? [...causes, tooLong(field, ANNOTATIONS_MAX_BYTES)] : causes;
}

/**
 * ValidateFinalizers (each a qualified name; not both orphan and foregroundDeletion), then
 * core's validateKubeFinalizerName: a name without a '/' must be one of the standard ones.
 */
function validateFinalizers(finalizers: unknown): StatusCause[] {
  if (!Array.isArray(finalizers)) return [];
  const names = finalizers.map((f) => (typeof f === 'string' ? f : String(f)));
  const causes = names.flatMap((f) => invalidCauses('metadata.finalizers', f, qualifiedNameErrors(f)));
  if (names.includes('orphan') && names.includes('foregroundDeletion')) {
    const shown = `[]string{${names.map((n) => JSON.stringify(n)).join(', ')}}`; // Go's %#v of the list
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: finalizer orphan and foregroundDeletion cannot be both set`, field: 'metadata.finalizers' });
  }
  names.forEach((f, i) => {
    const field = `metadata.finalizers[${i}]`;
    const errs = qualifiedNameErrors(f);
    if (errs.length > 0) causes.push(...invalidCauses(field, f, errs));
    else if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) causes.push(...invalidCauses(field, f, ['name is neither a standard finalizer name nor is it fully qualified']));
  });
  return causes;
}
