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

/** The nesting depth of a parsed value (YAML block nesting has no brackets); iterative. */
export function valueDepth(root: unknown, limit = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    max = Math.max(max, depth + 1);
    if (max > limit) return max;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return max;
}
