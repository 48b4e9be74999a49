/** How deeply JSON nests, found without recursion (deep input must not overflow the stack of whoever measures it). */

/** The deepest `{`/`[` nesting outside double-quoted strings; a linear scan, no recursion. */
export function bracketDepth(text: string): number {
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

/**
 * The field path (`spec.containers[0].x`) of the first object or array nested deeper than
 * `limit` levels, the root being level 1; undefined when none is. Iterative; a path is made
 * only for what it finds.
 */
export function pathBeyond(root: unknown, limit: number): string | undefined {
  if (limit <= MAX_RECURSIVE_LIMIT && !nestsBeyond(root, limit, 1)) return undefined;
  type Visit = { value: unknown; depth: number; parent?: Visit; key?: string };
  const stack: Visit[] = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (visit.value === null || typeof visit.value !== 'object') continue;
    if (visit.depth > limit) return pathOf(visit);
    const entries = Array.isArray(visit.value) ? visit.value.map((v, i) => [`[${i}]`, v] as const) : Object.entries(visit.value);
    for (const [key, value] of entries.reverse()) stack.push({ value, depth: visit.depth + 1, parent: visit, key });
  }
  return undefined;

  function pathOf(visit: Visit): string {
    const keys: string[] = [];
    for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) keys.push(v.key);
    return keys.reverse().reduce((path, key) => (key.startsWith('[') || path === '' ? `${path}${key}` : `${path}.${key}`), '');
  }
}

/** Limits up to which nestsBeyond may recurse (it goes at most one level past the limit). */
const MAX_RECURSIVE_LIMIT = 1000;

/**
 * Whether `value`, at level `depth`, holds an object or array deeper than `limit`: the check
 * every write passes, made without allocating (pathBeyond then finds where, for the few that fail).
 */
function nestsBeyond(value: unknown, limit: number, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (nestsBeyond(item, limit, depth + 1)) return true;
    return false;
  }
  const o = value as Record<string, unknown>;
  for (const key in o) if (Object.hasOwn(o, key) && nestsBeyond(o[key], limit, depth + 1)) return true;
  return false;
}
