import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Logger } from './log.js';
import { previousCopy } from './private-file.js';

export interface Recovered<T> {
  /** The document, from the file or its last good copy; undefined when neither is there or good. */
  value: T | undefined;
  /** What was wrong with the file, when it was not used as it was; undefined when it was, or on a first start (no file, no copy). */
  problem?: string;
}

export interface RecoverOptions<T> {
  /** The document in `text`; throws, saying what is wrong, when `text` is not one. */
  parse: (text: string) => T;
  logger: Logger;
  /**
   * What the process does when neither the file nor its last good copy is usable, said in the
   * WARN ("starting with an empty cache"); or, for a file it cannot do without, the error to throw.
   */
  otherwise: string | ((problem: string) => Error);
}

type Attempt<T> = { value: T } | { problem: string; missing: boolean };

/**
 * Reads a file written with writePrivate(…, { keepPrevious: true }), defensively: a missing,
 * empty, torn or otherwise damaged file falls back to its last good copy (`<path>.prev`), else
 * to what `otherwise` says, with one WARN naming the file, what was wrong and what it fell
 * back to. Only a first start, with neither file, reads quietly as nothing. Reading changes
 * nothing on disk; after a `problem`, the next write must not keep the damaged file as the
 * last good copy (keepPrevious: false).
 */
export async function readRecovering<T>(path: string, o: RecoverOptions<T>): Promise<Recovered<T>> {
  const current = await attempt(path, o.parse);
  if ('value' in current) return current;
  const prev = previousCopy(path);
  const copy = await attempt(prev, o.parse);
  if (current.missing && 'missing' in copy && copy.missing) return { value: undefined };
  const { problem } = current;
  if (typeof o.otherwise !== 'string' && !('value' in copy)) throw o.otherwise(problem);
  const fallback = 'value' in copy ? `: using its last good copy ${basename(prev)}` : ` and ${basename(prev)} is no good copy either: ${o.otherwise as string}`;
  o.logger.warn(`${path} is ${problem}${fallback}`);
  return 'value' in copy ? { value: copy.value, problem } : { value: undefined, problem };
}

async function attempt<T>(path: string, parse: (text: string) => T): Promise<Attempt<T>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { problem: 'missing', missing: true } : { problem: `unreadable (${code ?? (err as Error).message})`, missing: false };
  }
  if (text.trim() === '') return { problem: 'empty', missing: false };
  try {
    return { value: parse(text) };
  } catch (err) {
    return { problem: `damaged (${(err as Error).message})`, missing: false };
  }
}

type FieldType = 'string' | 'number' | 'boolean' | 'array' | 'object';

/**
 * A `parse` for a JSON object whose fields have these types; a field whose type ends in "?"
 * may be absent. Enough to tell a document from a damaged one, not a full schema.
 */
export function jsonDocument<T>(fields: Record<string, FieldType | `${FieldType}?`>): (text: string) => T {
  return (text) => {
    const doc: unknown = JSON.parse(text);
    if (kindOf(doc) !== 'object') throw new Error(`a JSON ${kindOf(doc)}, not an object`);
    for (const [name, type] of Object.entries(fields)) {
      const value = (doc as Record<string, unknown>)[name];
      if (value === undefined && type.endsWith('?')) continue;
      if (kindOf(value) !== type.replace('?', '')) throw new Error(`"${name}" is ${value === undefined ? 'missing' : `a ${kindOf(value)}`}, not a ${type.replace('?', '')}`);
    }
    return doc as T;
  };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}
