import type { SchemaSource } from './schemas/field-validation.js';
import { trackedFields, untrackedFields, type FieldOwnership } from './fields/field-ownership.js';

/**
 * kube-apiserver's rules on writes that kedge can leave out, each whole at its seam, so that a
 * benchmark can measure what they cost (bench/api-rules.ts). Always on in the cloud: no flag
 * or environment variable turns them off.
 */
export interface WriteRules {
  /** fieldValidation (unknown and duplicate fields) and typed validation against the kinds' schemas (schemas/). */
  validation: boolean;
  /** metadata.managedFields on every write, and apply's conflicts and pruning (fields/). */
  fieldOwnership: boolean;
}

export const ALL_WRITE_RULES: WriteRules = { validation: true, fieldOwnership: true };

/** The collaborators the write handlers get for `rules`: the schemas (absent: nothing judged) and the field ownership. */
export function writeRuleDeps(rules: Partial<WriteRules> | undefined, schemas: SchemaSource): { schemas?: SchemaSource; fields: FieldOwnership } {
  const on = { ...ALL_WRITE_RULES, ...rules };
  return { schemas: on.validation ? schemas : undefined, fields: on.fieldOwnership ? trackedFields : untrackedFields };
}
