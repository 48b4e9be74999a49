import { KedgeError } from '../../shared/errors.js';

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
  if (valueDepth(value) > MAX_BODY_NESTING) throw tooDeep();
  return value;
}

function tooDeep(): KedgeError {
  return new KedgeError('BadRequest', `the request body is nested more than ${MAX_BODY_NESTING} levels deep`);
}

/** The deepest `{`/`[` nesting outside double-quoted strings; a linear scan, no recursion. */
function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** The nesting depth of a parsed value (YAML block nesting has no brackets); iterative. */
function valueDepth(root: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    max = Math.max(max, depth + 1);
    if (max > MAX_BODY_NESTING) return max;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return max;
}
