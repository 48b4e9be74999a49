import { parseLabelSelector } from '../../cloud/apiserver/rest/selectors.js';
import { parseGoDuration } from '../../shared/go-duration.js';

export type Mapping = Record<string, unknown>;

export const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);

const shown = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v) ?? String(v));

/**
 * Reads the fields of one mapping of a scenario file, collecting a problem (naming where and
 * which field) for every missing, unknown or malformed one instead of stopping at the first.
 */
export class Fields {
  constructor(
    readonly map: Mapping,
    readonly where: string,
    private readonly problems: string[],
    /** Set on the fields of a nested mapping: its field's name and a dot. */
    private readonly prefix = '',
  ) {}

  problem(field: string | undefined, message: string): undefined {
    this.problems.push(field === undefined ? `${this.where}: ${message}` : `${this.where}, field "${this.prefix}${field}": ${message}`);
    return undefined;
  }

  /** The fields of the mapping in `field` (problems named `field.inner`), or undefined with a problem when it is not a mapping. */
  nested(field: string): Fields | undefined {
    const v = this.map[field];
    if (!isMapping(v)) return this.problem(field, `expected a mapping, got ${shown(v)}`);
    return new Fields(v, this.where, this.problems, `${this.prefix}${field}.`);
  }

  has(field: string): boolean {
    return this.map[field] !== undefined;
  }

  /** Every field must be one of `allowed`. */
  only(allowed: readonly string[]): void {
    for (const key of Object.keys(this.map)) {
      if (!allowed.includes(key)) this.problem(key, `unknown field (allowed here: ${allowed.join(', ')})`);
    }
  }

  string(field: string, required = false): string | undefined {
    const v = this.map[field];
    if (v === undefined) return required ? this.problem(field, 'required') : undefined;
    if (typeof v !== 'string' || v.trim() === '') return this.problem(field, `expected a non-empty text, got ${shown(v)}`);
    return v;
  }

  int(field: string, min: number, max: number, required = false): number | undefined {
    const v = this.map[field];
    if (v === undefined) return required ? this.problem(field, 'required') : undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) return this.problem(field, `expected a whole number from ${min} to ${max}, got ${shown(v)}`);
    return v;
  }

  positive(field: string): number | undefined {
    const v = this.map[field];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) return this.problem(field, `expected a number above 0, got ${shown(v)}`);
    return v;
  }

  bool(field: string, required = false): boolean | undefined {
    const v = this.map[field];
    if (v === undefined) return required ? this.problem(field, 'required') : undefined;
    if (typeof v !== 'boolean') return this.problem(field, `expected true or false, got ${shown(v)}`);
    return v;
  }

  oneOf<T extends string>(field: string, values: readonly T[], required = false): T | undefined {
    const v = this.map[field];
    if (v === undefined) return required ? this.problem(field, 'required') : undefined;
    if (!values.includes(v as T)) return this.problem(field, `expected one of ${values.join(', ')}, got ${shown(v)}`);
    return v as T;
  }

  /** A Go-style duration ("40s", "5m", "1m30s") in milliseconds. */
  duration(field: string, required = false): number | undefined {
    const v = this.map[field];
    if (v === undefined) return required ? this.problem(field, 'required') : undefined;
    const ms = typeof v === 'string' ? parseGoDuration(v) : undefined;
    if (ms === undefined || ms < 0) return this.problem(field, `expected a duration such as 30s, 5m or 1m30s, got ${shown(v)}`);
    return ms;
  }

  /** One text or a non-empty list of texts. */
  strings(field: string): string[] | undefined {
    const v = this.map[field];
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => typeof s === 'string' && s.trim() !== '')) {
      return this.problem(field, `expected a name or a list of names, got ${shown(v)}`);
    }
    return list as string[];
  }
}

/** The field's label selector, when it is one (`app=web`, `tier in (a,b)`). */
export function selectorOf(f: Fields, field = 'selector'): string | undefined {
  const text = f.string(field);
  if (text === undefined) return undefined;
  try {
    parseLabelSelector(text);
    return text;
  } catch (err) {
    return f.problem(field, (err as Error).message);
  }
}
