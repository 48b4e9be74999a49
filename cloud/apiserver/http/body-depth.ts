import { KedgeError } from '../../../shared/errors.js';
import { bracketDepth, pathBeyond } from '../../../shared/json-depth.js';

/**
 * How deeply a request body may nest. Real objects stay under ~30 levels; deeper bodies
 * overflowed the stack in the parsers and in recursive code after them (500s, and once a
 * crash of the process), so they are refused up front with 400 (kube-apiserver caps JSON at 10,000).
 */
export const MAX_BODY_NESTING = 512;

/** Parses `text`, refusing bodies nested deeper than MAX_BODY_NESTING before and after parsing. */
export function parseWithinDepth(text: string, parse: (text: string) => unknown): unknown {
  if (bracketDepth(text) > MAX_BODY_NESTING) throw tooDeep();
  const value = parse(text);
  if (pathBeyond(value, MAX_BODY_NESTING) !== undefined) throw tooDeep();
  return value;
}

/** JSON nests exactly as its brackets do: the scan before parsing is the whole check (no walk of the value after). */
export function parseJsonWithinDepth(text: string): unknown {
  if (bracketDepth(text) > MAX_BODY_NESTING) throw tooDeep();
  return JSON.parse(text);
}

function tooDeep(): KedgeError {
  return new KedgeError('BadRequest', `the request body is nested more than ${MAX_BODY_NESTING} levels deep`);
}
