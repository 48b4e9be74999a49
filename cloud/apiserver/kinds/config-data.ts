import { KedgeError, type StatusCause } from '../../../shared/errors.js';
import { invalidValue } from '../admission/admission.js';

/**
 * The data maps of ConfigMaps and Secrets: what kube's JSON decoding rejects (400, "cannot be
 * handled as a …") and what its validation rejects (422: key names, total size, immutability).
 */

/** ConfigMaps and Secrets hold at most 1 MiB of data (core.MaxSecretSize). */
export const MAX_DATA_BYTES = 1024 * 1024;

/** 400, worded as kube-apiserver's decoder words a body it cannot turn into the kind. */
export function undecodable(kind: string, why: string): KedgeError {
  return new KedgeError('BadRequest', `${kind} in version "v1" cannot be handled as a ${kind}: ${why}`);
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/**
 * Checks that `value` is absent or a map of strings, as Go's map[string]string (or
 * map[string][]byte, `bytes`) decodes; throws 400 otherwise. A null map is absent.
 */
export function checkStringMap(kind: string, field: string, value: unknown, bytes = false): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  const goType = bytes ? 'map[string][]uint8' : 'map[string]string';
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw undecodable(kind, `json: cannot unmarshal ${jsonType(value)} into Go struct field ${kind}.${field} of type ${goType}`);
  }
  for (const v of Object.values(value)) {
    if (v === null) continue;
    if (typeof v !== 'string') {
      throw undecodable(kind, `json: cannot unmarshal ${jsonType(v)} into Go struct field ${kind}.${field} of type ${bytes ? '[]uint8' : 'string'}`);
    }
    if (bytes) {
      const at = base64ErrorOffset(v);
      if (at >= 0) throw undecodable(kind, `illegal base64 data at input byte ${at}`);
    }
  }
  return value as Record<string, string>;
}

const base64Char = /[A-Za-z0-9+/]/;

/**
 * Where Go's base64.StdEncoding stops on `text` (a byte it cannot take, or the start of an
 * incomplete last quantum), or -1 when it decodes. Like Go, line breaks are skipped.
 */
export function base64ErrorOffset(text: string): number {
  let quantumStart = 0;
  let inQuantum = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n' || c === '\r') continue;
    if (padding > 0 && c !== '=') return i;
    if (inQuantum === 0) quantumStart = i;
    if (c === '=') {
      if (inQuantum < 2) return i;
      padding++;
    } else if (!base64Char.test(c)) {
      return i;
    }
    inQuantum = (inQuantum + 1) % 4;
  }
  return inQuantum === 0 ? -1 : quantumStart;
}

/** The number of bytes a map of values holds (decoded, for base64 values). */
export function dataSize(map: Record<string, string> | undefined, base64: boolean): number {
  let total = 0;
  for (const v of Object.values(map ?? {})) total += base64 ? Buffer.from(v ?? '', 'base64').length : Buffer.byteLength(v ?? '');
  return total;
}

const configKey = /^[-._a-zA-Z0-9]+$/;

/** validation.IsConfigMapKey for every key of `map`, reported at `field[key]`. */
export function checkKeys(field: string, map: Record<string, string> | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of Object.keys(map ?? {})) {
    const at = `${field}[${key}]`;
    if (key.length > 253) causes.push(invalidValue(at, key, 'must be no more than 253 characters'));
    if (!configKey.test(key)) {
      causes.push(invalidValue(at, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
    }
    if (key === '.') causes.push(invalidValue(at, key, "must not be '.'"));
    else if (key === '..') causes.push(invalidValue(at, key, "must not be '..'"));
    else if (key.startsWith('..')) causes.push(invalidValue(at, key, "must not start with '..'"));
  }
  return causes;
}

export function tooLong(field: string): StatusCause {
  return { reason: 'FieldValueTooLong', field, message: `Too long: must have at most ${MAX_DATA_BYTES} bytes` };
}

interface Freezable {
  immutable?: boolean;
}

/**
 * What an update of an immutable ConfigMap or Secret may not do: change the `fields` listed,
 * or set `immutable` back.
 */
export function immutabilityCauses<T extends Freezable>(next: T, old: T | undefined, fields: (keyof T & string)[]): StatusCause[] {
  if (old?.immutable !== true) return [];
  const forbidden = (field: string): StatusCause => ({ reason: 'FieldValueForbidden', field, message: 'Forbidden: field is immutable when `immutable` is set' });
  const causes: StatusCause[] = [];
  if (next.immutable !== true) causes.push(forbidden('immutable'));
  for (const field of fields) {
    if (!sameMap(next[field], old[field])) causes.push(forbidden(field));
  }
  return causes;
}

function sameMap(a: unknown, b: unknown): boolean {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => Object.hasOwn(y, k) && x[k] === y[k]);
}
